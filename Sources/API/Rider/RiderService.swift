import EventStore
import Foundation
import JSON
import Journey
import Projections
import ReadModels
import Signing

/// The rider-facing operations: a trip's journey (GET, long poll, SSE), a rider's trips, share
/// links and the provider's journey style; independent of HTTP details.
///
/// Who may read a trip's journey: `server` and `auditor` tokens of the provider, a `consumer`
/// token naming the trip (`authorization.tripid`) or its rider (`authorization.consumerid`, matched
/// against the trip's `consumerId` attribute), a `driver` token of the vehicle assigned to the
/// trip, and a live share link of the trip. Everything is read from the journey projection (its
/// mirror in memory while this node owns it), and the driver check from the fleet projection.
package final class RiderService: Sendable {
    let hub: JourneyHub
    let readModel: JourneyReadModel
    let fleet: FleetReadModel
    let repository: AggregateRepository
    let authenticator: Authenticator
    /// nil without an HS256 secret: share links are then unavailable.
    let links: ShareLinkToken?
    let clock: @Sendable () -> Timestamp
    /// The base of share-link URLs (`WAYMARK_PUBLIC_URL`); nil: `http://` + the request's Host.
    let publicURL: String?

    /// The longest long poll, in seconds.
    static let maximumWaitSeconds = 60

    init(hub: JourneyHub, readModel: JourneyReadModel, fleet: FleetReadModel, repository: AggregateRepository, authenticator: Authenticator,
         clock: @escaping @Sendable () -> Timestamp, publicURL: String?) {
        self.hub = hub
        self.readModel = readModel
        self.fleet = fleet
        self.repository = repository
        self.authenticator = authenticator
        self.links = authenticator.hs256Secret.map { ShareLinkToken(secret: $0) }
        self.clock = clock
        self.publicURL = publicURL
    }

    static func tripKey(_ provider: String, _ tripId: String) -> String {
        JourneyViewProjection.viewKey(provider: provider, tripId: tripId)
    }

    private var nowSeconds: Int64 { clock().microsecondsSinceEpoch / 1_000_000 }

    // MARK: - Who is reading

    /// The reader behind a bearer token: a share link (signature and expiry checked) or a JWT.
    func reader(token: String) throws(APIError) -> JourneyReader {
        if ShareLinkToken.looksLikeLink(token) {
            guard let links, let claims = links.verify(token) else { throw .unauthenticated("the share-link token is not valid") }
            guard claims.expires > nowSeconds else { throw .unauthenticated("the share link has expired") }
            return .shareLink(claims)
        }
        let (principal, expires) = try authenticator.verifyWithExpiry(token: token)
        return .principal(principal, expires: expires)
    }

    /// The reader behind a token seen (and verified) before, from memory only; nil otherwise.
    func cachedReader(token: String) -> JourneyReader? {
        if ShareLinkToken.looksLikeLink(token) {
            guard let claims = links?.cached(token), claims.expires > nowSeconds else { return nil }
            return .shareLink(claims)
        }
        return authenticator.cachedPrincipal(token: token).map { .principal($0.principal, expires: $0.expires) }
    }

    /// Throws unless `reader` may read the journey of the trip. NOT_FOUND only for readers who may
    /// see every trip of the provider (others get PERMISSION_DENIED, which says nothing about existence).
    func authorizeJourney(_ reader: JourneyReader, provider: String, tripId: String) async throws(APIError) {
        let key = Self.tripKey(provider, tripId)
        switch reader {
        case .shareLink(let claims):
            guard claims.provider == provider, claims.tripId == tripId else {
                throw .permissionDenied("the share link is for another trip (requested \(tripId))")
            }
            let shares = try await readModel.document(JourneyViewProjection.sharesCollection, key).flatMap(JourneyViewShares.init(document:))
            if let reason = (shares ?? JourneyViewShares()).refusal(of: claims.linkId, at: clock()) {
                throw .unauthenticated(Self.linkMessage(reason))
            }
        case .principal(let principal, _):
            try principal.requireProvider(provider)
            switch principal.role {
            case .server, .auditor:
                return
            case .consumer:
                if principal.tripId == tripId { return }
                if let consumerId = principal.consumerId, try await riderTripIds(provider: provider, consumerId: consumerId).contains(tripId) { return }
                throw .permissionDenied("a consumer token may read only its own trips' journeys (trip \(tripId))")
            case .driver:
                guard let trip = try await fleet.document(FleetResourceProjection.tripsCollection, key) else {
                    throw .notFound("trip \(tripId) not found (provider \(provider))")
                }
                guard trip["vehicleId"]?.stringValue == principal.vehicleId else {
                    throw .permissionDenied("a driver token may read only the journeys of trips assigned to its vehicle (trip \(tripId))")
                }
            }
        }
    }

    /// True when memory alone shows that `reader` may read the trip's journey (the fast path's check).
    func isAuthorizedFromMemory(_ reader: JourneyReader, provider: String, tripId: String, key: String) -> Bool {
        switch reader {
        case .shareLink(let claims):
            guard claims.provider == provider, claims.tripId == tripId,
                  let mirrored = readModel.memoryDocument(JourneyViewProjection.sharesCollection, key),
                  let shares = mirrored.flatMap(JourneyViewShares.init(document:))
            else { return false }
            return shares.refusal(of: claims.linkId, at: clock()) == nil
        case .principal(let principal, _):
            guard principal.provider == provider else { return false }
            switch principal.role {
            case .server, .auditor:
                return true
            case .consumer:
                if principal.tripId == tripId { return true }
                guard let consumerId = principal.consumerId,
                      let mirrored = readModel.memoryDocument(JourneyViewProjection.ridersCollection,
                                                              JourneyViewShares.riderKey(provider: provider, consumerId: consumerId)),
                      let list = mirrored?["trips"]?.arrayValue
                else { return false }
                return list.contains(.string(tripId))
            case .driver:
                guard let mirrored = fleet.mirror?.document(FleetResourceProjection.tripsCollection, key), let trip = mirrored else { return false }
                return trip["vehicleId"]?.stringValue == principal.vehicleId
            }
        }
    }

    static func linkMessage(_ reason: String) -> String {
        reason == "LINK_REVOKED" ? "the share link was revoked" : "the share link has expired"
    }

    // MARK: - Journey

    /// What a journey GET answers.
    enum JourneyAnswer {
        case view(JourneySnapshot)
        case notModified(JourneySnapshot)
    }

    /// A journey GET: the current view, 304 when the client has it (`If-None-Match`), and with
    /// `waitSeconds` a long poll until the version moves (304 again when it did not within the wait).
    func journey(provider: String, tripId: String, reader: JourneyReader, ifNoneMatch: String?, waitSeconds: Int) async throws(APIError) -> JourneyAnswer {
        try await authorizeJourney(reader, provider: provider, tripId: tripId)
        let key = Self.tripKey(provider, tripId)
        guard let current = try await hub.snapshot(key) else { throw Self.journeyNotFound(provider, tripId) }
        guard let ifNoneMatch, Self.matches(ifNoneMatch, current.etag) else { return .view(current) }
        guard waitSeconds > 0 else { return .notModified(current) }
        switch await hub.wait(key, after: current.rank, timeout: .seconds(waitSeconds)) {
        case .timedOut:
            return .notModified(current)
        case .deleted:
            throw Self.journeyNotFound(provider, tripId)
        case .changed:
            // Access may have ended meanwhile (a revoked link): check again before answering.
            try await authorizeJourney(reader, provider: provider, tripId: tripId)
            guard let next = try await hub.snapshot(key) else { throw Self.journeyNotFound(provider, tripId) }
            return next.rank == current.rank ? .notModified(next) : .view(next)
        }
    }

    /// The fast path's journey GET: an answer from memory when everything it needs is there, else nil.
    func journeyFromMemory(provider: String, tripId: String, reader: JourneyReader, ifNoneMatch: String?, waitSeconds: Int) -> JourneyAnswer? {
        let key = Self.tripKey(provider, tripId)
        guard isAuthorizedFromMemory(reader, provider: provider, tripId: tripId, key: key), case .found(let current) = hub.memorySnapshot(key) else { return nil }
        guard let ifNoneMatch, Self.matches(ifNoneMatch, current.etag) else { return .view(current) }
        return waitSeconds > 0 ? nil : .notModified(current)
    }

    static func journeyNotFound(_ provider: String, _ tripId: String) -> APIError {
        .notFound("no journey view of trip \(tripId) (provider \(provider)): the trip does not exist")
    }

    /// `If-None-Match` against an ETag: `*`, or a comma-separated list of (possibly weak) tags.
    static func matches(_ header: String, _ etag: String) -> Bool {
        for part in header.split(separator: ",") {
            var tag = part.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == etag { return true }
        }
        return false
    }

    /// Opens an SSE stream on the trip's journey (see `JourneyHub.subscribe`): `open` makes the
    /// sink, given the frame to send if the server shuts down while it is open.
    func stream<Sink: EventSink>(provider: String, tripId: String, reader: JourneyReader, lastEventId: Int64?,
                                 opening open: ([UInt8]) -> Sink) async throws(APIError) -> Sink {
        try await authorizeJourney(reader, provider: provider, tripId: tripId)
        let key = Self.tripKey(provider, tripId)
        guard let current = try await hub.snapshot(key) else { throw Self.journeyNotFound(provider, tripId) }
        return subscribe(key, provider: provider, tripId: tripId, reader: reader, lastEventId: lastEventId, initial: current, stream: open(JourneySnapshot.shutdownFrame))
    }

    /// The fast path's stream: opened from memory when possible, else nil.
    func streamFromMemory<Sink: EventSink>(provider: String, tripId: String, reader: JourneyReader, lastEventId: Int64?,
                                           opening open: ([UInt8]) -> Sink) -> Sink? {
        let key = Self.tripKey(provider, tripId)
        guard isAuthorizedFromMemory(reader, provider: provider, tripId: tripId, key: key), case .found(let current) = hub.memorySnapshot(key) else { return nil }
        return subscribe(key, provider: provider, tripId: tripId, reader: reader, lastEventId: lastEventId, initial: current, stream: open(JourneySnapshot.shutdownFrame))
    }

    private func subscribe<Sink: EventSink>(_ key: String, provider: String, tripId: String, reader: JourneyReader, lastEventId: Int64?,
                                            initial: JourneySnapshot, stream: Sink) -> Sink {
        var access: JourneyHub.Access = switch reader {
        case .principal(_, let expires): JourneyHub.Access(expires: expires, shareLinkId: nil)
        case .shareLink(let claims): JourneyHub.Access(expires: claims.expires, shareLinkId: claims.linkId)
        }
        if case .principal(let principal, _) = reader, principal.role == .driver || (principal.role == .consumer && principal.tripId != tripId) {
            // A driver reads while its vehicle serves the trip, a rider while the trip names them:
            // memory answers on the owner node, the tables elsewhere. Only a refusal ends the stream
            // (a database that cannot answer now does not).
            access.stillAllowed = { [weak self] in
                guard let self else { return false }
                if self.isAuthorizedFromMemory(reader, provider: provider, tripId: tripId, key: key) { return true }
                do throws(APIError) {
                    try await self.authorizeJourney(reader, provider: provider, tripId: tripId)
                    return true
                } catch {
                    return !(error.code == .permissionDenied || error.code == .notFound)
                }
            }
        }
        hub.subscribe(key, stream: stream, lastEventId: lastEventId, access: access, initial: initial)
        return stream
    }

    // MARK: - A rider's trips

    /// Ids of the trips whose `consumerId` attribute names the rider.
    func riderTripIds(provider: String, consumerId: String) async throws(APIError) -> [String] {
        let document = try await readModel.document(JourneyViewProjection.ridersCollection, JourneyViewShares.riderKey(provider: provider, consumerId: consumerId))
        return document?["trips"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// `{"trips":[{"name","tripStatus","nextStop","dropoffEta","version"}]}` for the rider's trips, in trip id order.
    func riderTrips(provider: String, consumerId: String, activeOnly: Bool, reader: JourneyReader) async throws(APIError) -> JSONValue {
        let principal = try reader.requirePrincipal(to: "list a rider's trips")
        try principal.requireProvider(provider)
        switch principal.role {
        case .server, .auditor:
            break
        case .consumer:
            guard principal.consumerId == consumerId else {
                throw .permissionDenied("a consumer token may list only its own rider's trips (authorization.consumerid must be \(consumerId))")
            }
        case .driver:
            throw .permissionDenied("a driver token may not list a rider's trips")
        }
        let ids = try await riderTripIds(provider: provider, consumerId: consumerId)
        let keys = ids.map { Self.tripKey(provider, $0) }
        let views = try await readModel.documents(JourneyViewProjection.viewsCollection, keys: keys)
        var trips: [JSONValue] = []
        for key in keys {
            guard let view = views[key] else { continue }
            let status = view["tripStatus"]?.stringValue ?? ""
            if activeOnly, status == "COMPLETE" || status == "CANCELED" { continue }
            trips.append(.object(JSONObject([
                ("name", view["name"] ?? .string(key)), ("tripStatus", .string(status)), ("nextStop", view["nextStop"] ?? .null),
                ("dropoffEta", view["dropoffEta"] ?? .null), ("version", view["version"] ?? .null),
            ])))
        }
        return .object(JSONObject([("trips", .array(trips))]))
    }

    // MARK: - Share links

    /// Creates a share link: `{"token","url","expireTime"}`. Server tokens, or the trip's own consumer.
    func share(provider: String, tripId: String, ttlSeconds: Int64?, reader: JourneyReader, context requestId: String, host: String?) async throws(APIError) -> JSONValue {
        let principal = try reader.requirePrincipal(to: "share a trip")
        try await authorizeSharing(principal, reader: reader, provider: provider, tripId: tripId, action: "share")
        guard let links else {
            throw APIError(.failedPrecondition, "share links need the server's HS256 secret (WAYMARK_JWT_SECRET), which is not configured")
        }
        let lifetime = ShareLink.maximumLifetimeSeconds
        if let ttlSeconds, !(1...lifetime).contains(ttlSeconds) {
            throw .invalidArgument("ttlSeconds must be within 1..\(lifetime) (got \(ttlSeconds))")
        }
        // The trip's own stream, not its journey view: a trip created a moment ago can be shared at once.
        let trip = try await repository.loadTrip(provider: provider, tripId: tripId).state
        guard trip.exists else { throw .notFound("trip \(tripId) not found (provider \(provider))") }
        guard !trip.status.isTerminal else {
            throw APIError(.failedPrecondition, "trip \(tripId) has ended (\(trip.status.rawValue)); only trips in progress can be shared")
        }
        let now = clock()
        let expires = now.microsecondsSinceEpoch / 1_000_000 + (ttlSeconds ?? lifetime)
        let linkId = Digest.hex(Digest.randomBytes(16))
        let context = CommandContext(caller: principal, requestId: requestId)
        try await decideShare(provider: provider, tripId: tripId, context: context) { _ in
            .createLink(tripId: tripId, linkId: linkId, expireTime: Timestamp(secondsSinceEpoch: expires), at: now)
        }
        let token = links.mint(.init(provider: provider, tripId: tripId, linkId: linkId, expires: expires))
        let base = publicURL ?? "http://\(host ?? "localhost")"
        let url = "\(base)/demo/rider?provider=\(Self.percentEncoded(provider))&trip=\(Self.percentEncoded(tripId))#access_token=\(token)"
        return .object(JSONObject([
            ("token", .string(token)), ("url", .string(url)), ("expireTime", .string(Timestamp(secondsSinceEpoch: expires).rfc3339)),
        ]))
    }

    /// Revokes one link (`token`) or every link of the trip: `{"revoked": n}`.
    func unshare(provider: String, tripId: String, token: String?, reader: JourneyReader, context requestId: String) async throws(APIError) -> JSONValue {
        let principal = try reader.requirePrincipal(to: "revoke share links")
        try await authorizeSharing(principal, reader: reader, provider: provider, tripId: tripId, action: "revoke share links of")
        var linkIds: [String]?
        if let token {
            guard let claims = links?.verify(token) else { throw .invalidArgument("token is not a share-link token of this server") }
            guard claims.provider == provider, claims.tripId == tripId else {
                throw .invalidArgument("token is a share link of another trip (not \(tripId))")
            }
            linkIds = [claims.linkId]
        }
        let now = clock()
        let context = CommandContext(caller: principal, requestId: requestId)
        let events = try await decideShare(provider: provider, tripId: tripId, context: context) { _ in
            .revokeLinks(tripId: tripId, linkIds: linkIds, at: now)
        }
        let revoked = events.reduce(0) { count, event in
            if case .revoked(let e) = event { return count + e.linkIds.count }
            return count
        }
        return .object(JSONObject([("revoked", .number(JSONNumber(revoked)))]))
    }

    /// Server tokens of the provider, or a consumer token that reads the trip.
    private func authorizeSharing(_ principal: Principal, reader: JourneyReader, provider: String, tripId: String, action: String) async throws(APIError) {
        try principal.requireProvider(provider)
        switch principal.role {
        case .server: return
        case .consumer: try await authorizeJourney(reader, provider: provider, tripId: tripId)
        case .driver, .auditor: throw .permissionDenied("a \(principal.role.rawValue) token may not \(action) trips")
        }
    }

    /// Decides and appends on the trip's share-link stream (retrying a lost race), then waits until
    /// the journey projection applied it, so the link works (or stops working) on return.
    @discardableResult
    private func decideShare(provider: String, tripId: String, context: CommandContext,
                             _ command: (ShareLink.State) -> ShareLink.Command) async throws(APIError) -> [ShareLink.Event] {
        let stream = AggregateRepository.shareStream(provider: provider, tripId: tripId)
        for attempt in 1...TripService.attempts {
            let loaded = try await repository.loadShareLinks(provider: provider, tripId: tripId)
            let events: [ShareLink.Event]
            do { events = try ShareLink.decide(command(loaded.state), state: loaded.state) } catch { throw APIError(error) }
            guard !events.isEmpty else { return [] }
            switch try await repository.appendDecided(ShareLinkAggregate.self, stream: stream, before: loaded, events: events, metadata: context.metadata) {
            case .success(let result):
                try await settle(result)
                return events
            case .failure(let error) where error.code == .wrongExpectedVersion && attempt < TripService.attempts:
                continue
            case .failure(let error):
                throw APIError(error, doing: "append to the share links of trip \(tripId)")
            }
        }
        throw APIError(.aborted, "the share links of trip \(tripId) kept changing; retry")
    }

    private func settle(_ result: AppendResult) async throws(APIError) {
        guard let position = result.feedPosition else { return }
        guard await readModel.waitUntilApplied(position) else {
            throw APIError(.unavailable, "the change was saved, but the journey read model has not caught up within \(readModel.consistencyTimeout); retry shortly")
        }
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    // MARK: - Journey style

    /// The provider's journey style (version 0 and no options while none was set).
    func journeyStyle(provider: String, reader: JourneyReader) async throws(APIError) -> JSONValue {
        let principal = try reader.requirePrincipal(to: "read the journey style")
        try principal.requireProvider(provider)
        return try await storedStyle(provider: provider)
    }

    /// Replaces the provider's journey style (server tokens); `expectedVersion` from `If-Match`.
    func setJourneyStyle(provider: String, options: JourneyStyle.Options, expectedVersion: Int64?, reader: JourneyReader, requestId: String) async throws(APIError) -> JSONValue {
        let principal = try reader.requirePrincipal(to: "change the journey style")
        try principal.requireProvider(provider)
        try principal.require([.server], to: "change the journey style")
        let context = CommandContext(caller: principal, requestId: requestId)
        let stream = AggregateRepository.styleStream(provider: provider)
        for attempt in 1...TripService.attempts {
            let loaded = try await repository.loadJourneyStyle(provider: provider)
            let events: [JourneyStyle.Event]
            do {
                events = try JourneyStyle.decide(.setStyle(options, expectedVersion: expectedVersion, at: clock()), state: loaded.state)
            } catch {
                throw APIError(error)
            }
            guard !events.isEmpty else { break }
            switch try await repository.appendDecided(JourneyStyleAggregate.self, stream: stream, before: loaded, events: events, metadata: context.metadata) {
            case .success(let result):
                try await settle(result)
                return try await storedStyle(provider: provider)
            case .failure(let error) where error.code == .wrongExpectedVersion && attempt < TripService.attempts && expectedVersion == nil:
                continue
            case .failure(let error) where error.code == .wrongExpectedVersion:
                throw APIError(.aborted, "the journey style changed concurrently; read it again", underlying: error)
            case .failure(let error):
                throw APIError(error, doing: "append to the journey style of provider \(provider)")
            }
        }
        return try await storedStyle(provider: provider)
    }

    private func storedStyle(provider: String) async throws(APIError) -> JSONValue {
        if let stored = try await readModel.document(JourneyViewProjection.stylesCollection, "providers/\(provider)") { return stored }
        return .object(JSONObject([
            ("name", .string("providers/\(provider)/journeyStyle")), ("version", .number(JSONNumber(0))), ("updateTime", .null),
            ("markers", .object(JSONObject())), ("polylines", .object(JSONObject())),
        ]))
    }
}
