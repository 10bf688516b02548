import Foundation
import Postgres
import Signing

/// A signed checkpoint over a contiguous range of the global feed (a row of `audit_roots`).
package struct AuditRoot: Sendable, Hashable {
    package let number: Int64
    /// The first event the root covers.
    package let first: FeedPosition
    /// The last event the root covers; the next root starts right after it.
    package let last: FeedPosition
    package let eventCount: Int64
    package let previousRoot: [UInt8]
    package let root: [UInt8]
    package let createdAtMicros: Int64

    package init(number: Int64, first: FeedPosition, last: FeedPosition, eventCount: Int64, previousRoot: [UInt8], root: [UInt8], createdAtMicros: Int64) {
        self.number = number
        self.first = first
        self.last = last
        self.eventCount = eventCount
        self.previousRoot = previousRoot
        self.root = root
        self.createdAtMicros = createdAtMicros
    }
}

/// A root whose range or link no longer matches what is stored.
package struct AuditRootBreak: Sendable, Hashable, CustomStringConvertible {
    package let number: Int64
    package let description: String
}

/// Signed roots over the global feed: every range of the gap-safe feed is summarised by an
/// HMAC-SHA256 that chains to the root before it, so an auditor holding the key (or a root
/// published elsewhere) can prove whole ranges of the log unchanged without trusting the rows.
///
///     root(n) = HMAC-SHA256(key, "waymark.audit-root.v1" ‖ root(n-1) ‖ u64be(n) ‖ u64be(last txid)
///                               ‖ i64be(last position) ‖ u64be(event count) ‖ hash(e1) ‖ … ‖ hash(ek))
///
/// with `root(0)` = 32 zero bytes and e1…ek the events after root n-1's last feed position up
/// to and including root n's, in feed order `(txid, global_position)`. Ranges are taken only
/// below the oldest running transaction (as the projectors read), so no event can later appear
/// inside a range that already has a root. This encoding is part of the stored data and must
/// never change.
package enum AuditRoots {
    /// The "previous root" of root 1.
    package static let genesis = [UInt8](repeating: 0, count: 32)
    static let label = Array("waymark.audit-root.v1".utf8)

    /// The root over `hashes` (in feed order) following `previous`.
    package static func compute(key: [UInt8], previous: [UInt8], number: Int64, last: FeedPosition, hashes: [[UInt8]]) -> [UInt8] {
        var message = [UInt8]()
        message.reserveCapacity(label.count + 32 + 32 + hashes.count * 32)
        message.append(contentsOf: label)
        message.append(contentsOf: previous)
        append(UInt64(bitPattern: number), to: &message)
        append(last.transactionId, to: &message)
        append(UInt64(bitPattern: last.globalPosition), to: &message)
        append(UInt64(hashes.count), to: &message)
        for hash in hashes { message.append(contentsOf: hash) }
        return Digest.hmacSHA256(key: key, message: message)
    }

    private static func append(_ value: UInt64, to buffer: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static let columns = """
        root_number, first_txid::text, first_position, last_txid::text, last_position, event_count, previous_root, root,
        (extract(epoch FROM created_at) * 1000000)::bigint
        """

    static func decode(_ row: Row) throws -> AuditRoot {
        AuditRoot(number: try row.int64(0), first: FeedPosition(transactionId: try row.uint64(1), globalPosition: try row.int64(2)),
                  last: FeedPosition(transactionId: try row.uint64(3), globalPosition: try row.int64(4)), eventCount: try row.int64(5),
                  previousRoot: try row.bytes(6), root: try row.bytes(7), createdAtMicros: try row.int64(8))
    }

    /// The newest root, nil before the first.
    package static func latest(on connection: Connection) throws -> AuditRoot? {
        try connection.query("SELECT \(columns) FROM audit_roots ORDER BY root_number DESC LIMIT 1").first.map(decode)
    }

    /// Roots after number `after`, ascending, at most `limit`.
    package static func list(on connection: Connection, after: Int64, limit: Int) throws -> [AuditRoot] {
        try connection.query("SELECT \(columns) FROM audit_roots WHERE root_number > $1 ORDER BY root_number LIMIT $2",
                             [String(after), String(limit)]).rows.map(decode)
    }

    /// Appends the next root when the feed below the xmin horizon holds `every` events past the
    /// last root, or, when `force`, at least one. Returns the root written; nil when there was
    /// nothing to cover yet or another writer took the number first.
    package static func appendNext(on connection: Connection, key: [UInt8], every: Int, force: Bool) throws -> AuditRoot? {
        let previous = try latest(on: connection)
        let after = previous?.last ?? .start
        // The text of txid must not be named `txid`: a bare `ORDER BY txid` would then sort by the
        // text ("10000" < "9999"), and a root would cover events out of feed order.
        let rows = try connection.query("""
            SELECT txid::text AS txid_text, global_position, hash FROM events
            WHERE (txid, global_position) > ($1::xid8, $2::bigint) AND txid < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY events.txid, events.global_position LIMIT $3
            """, [String(after.transactionId), String(after.globalPosition), String(every)]).rows
        guard rows.count == every || (force && !rows.isEmpty) else { return nil }
        var hashes: [[UInt8]] = []
        hashes.reserveCapacity(rows.count)
        for row in rows { hashes.append(try row.bytes(2)) }
        let first = FeedPosition(transactionId: try rows[0].uint64(0), globalPosition: try rows[0].int64(1))
        let last = FeedPosition(transactionId: try rows[rows.count - 1].uint64(0), globalPosition: try rows[rows.count - 1].int64(1))
        let number = (previous?.number ?? 0) + 1
        let previousRoot = previous?.root ?? genesis
        let root = compute(key: key, previous: previousRoot, number: number, last: last, hashes: hashes)
        let inserted = try connection.query("""
            INSERT INTO audit_roots (root_number, first_txid, first_position, last_txid, last_position, event_count, previous_root, root, created_at)
            VALUES ($1, $2::xid8, $3, $4::xid8, $5, $6, $7::bytea, $8::bytea, now())
            ON CONFLICT (root_number) DO NOTHING
            RETURNING \(columns)
            """, [String(number), String(first.transactionId), String(first.globalPosition), String(last.transactionId),
                  String(last.globalPosition), String(rows.count), PostgresText.hexBytea(previousRoot), PostgresText.hexBytea(root)])
        return try inserted.first.map(decode)
    }

    /// Recomputes every root from the stored events; `progress` gets the number of roots checked.
    ///
    /// Reports a root whose range now holds other events (edited, deleted, inserted or
    /// reordered), or whose link to the root before it is broken. Reads one root's range at a
    /// time, each in its own statement.
    package static func verify(on connection: Connection, key: [UInt8], progress: (Int) -> Void = { _ in }) throws -> RootVerification {
        var breaks: [AuditRootBreak] = []
        var checked = 0
        var archivedRoots = 0
        // Feed ranges whose vehicle events were archived: a root overlapping one needs the archive file.
        let archives = try connection.query("SELECT first_txid::text, first_position, last_txid::text, last_position FROM audit_archives").rows.map { row in
            (FeedPosition(transactionId: try row.uint64(0), globalPosition: try row.int64(1)), FeedPosition(transactionId: try row.uint64(2), globalPosition: try row.int64(3)))
        }
        var previous: AuditRoot?
        while true {
            let page = try list(on: connection, after: previous?.number ?? 0, limit: 100)
            if page.isEmpty { break }
            for root in page {
                checked += 1
                let expectedNumber = (previous?.number ?? 0) + 1
                let after = previous?.last ?? .start
                let range = "feed after \(after) through \(root.last), \(root.eventCount) events"
                if root.number != expectedNumber {
                    breaks.append(AuditRootBreak(number: root.number, description: "root \(root.number): roots \(expectedNumber) to \(root.number - 1) are missing"))
                } else if root.previousRoot != (previous?.root ?? genesis) {
                    breaks.append(AuditRootBreak(number: root.number, description:
                        "root \(root.number): previous_root \(Digest.hex(root.previousRoot)) does not match root \(root.number - 1) (\(Digest.hex(previous?.root ?? genesis)))"))
                } else {
                    if archives.contains(where: { $0.0 <= root.last && after < $0.1 }) {
                        archivedRoots += 1
                        previous = root
                        continue
                    }
                    let rows = try connection.query("""
                        SELECT hash FROM events
                        WHERE (txid, global_position) > ($1::xid8, $2::bigint) AND (txid, global_position) <= ($3::xid8, $4::bigint)
                        ORDER BY events.txid, events.global_position LIMIT $5
                        """, [String(after.transactionId), String(after.globalPosition), String(root.last.transactionId),
                              String(root.last.globalPosition), String(root.eventCount + 1)]).rows
                    let hashes = try rows.map { try $0.bytes(0) }
                    let recomputed = compute(key: key, previous: root.previousRoot, number: root.number, last: root.last, hashes: hashes)
                    if !Digest.constantTimeEquals(recomputed, root.root) {
                        let counted = hashes.count == root.eventCount ? "" : "; the range now holds \(hashes.count > root.eventCount ? "more than \(root.eventCount)" : String(hashes.count)) events"
                        breaks.append(AuditRootBreak(number: root.number, description:
                            "root \(root.number) (\(range)): range no longer matches: expected \(Digest.hex(root.root)), found \(Digest.hex(recomputed))\(counted)"))
                    }
                }
                previous = root
            }
            progress(checked)
        }
        return RootVerification(roots: checked, breaks: breaks, archived: archivedRoots)
    }

    /// What `verify` found.
    package struct RootVerification: Sendable {
        package var roots: Int
        package var breaks: [AuditRootBreak]
        /// Roots not rechecked because their range includes archived vehicle events.
        package var archived: Int
    }
}
