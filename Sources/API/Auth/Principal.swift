/// Who is calling, as established from a verified bearer token.
package struct Principal: Sendable, Hashable {
    /// What a token may do (issue: auth roles).
    package enum Role: String, Sendable, Hashable, CaseIterable {
        /// A fleet's backend: everything for its provider.
        case server
        /// A driver app: its own vehicle, and the trips assigned to it.
        case driver
        /// A rider app: one trip's journey (or every trip of one rider), read only.
        case consumer
        /// Read-only access to a provider's resources and history.
        case auditor
    }

    package var role: Role
    package var provider: String
    /// `authorization.tripid` (consumer tokens).
    package var tripId: String?
    /// `authorization.vehicleid` (driver tokens).
    package var vehicleId: String?
    /// `authorization.consumerid` (consumer tokens naming a rider).
    package var consumerId: String?
    /// `sub`, when the token has one (recorded in event metadata).
    package var subject: String?

    package init(role: Role, provider: String, tripId: String? = nil, vehicleId: String? = nil, consumerId: String? = nil, subject: String? = nil) {
        self.role = role
        self.provider = provider
        self.tripId = tripId
        self.vehicleId = vehicleId
        self.consumerId = consumerId
        self.subject = subject
    }

    /// Throws PERMISSION_DENIED unless the token belongs to `provider`, byte for byte (Swift's `==`
    /// would take a Kelvin sign for a K, and the database would not).
    func requireProvider(_ provider: String) throws(APIError) {
        guard self.provider.utf8.elementsEqual(provider.utf8) else {
            throw .permissionDenied("the token is for another provider (token provider \(self.provider), requested \(provider))")
        }
    }

    /// Throws PERMISSION_DENIED unless the role is one of `roles`.
    func require(_ roles: Set<Role>, to action: String) throws(APIError) {
        guard roles.contains(role) else {
            throw .permissionDenied("a \(role.rawValue) token may not \(action)")
        }
    }
}
