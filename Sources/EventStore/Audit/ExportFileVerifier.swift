import Foundation
import JSON
import Signing

/// Verifies an NDJSON export or archive file on its own: every stream's hash chain is
/// recomputed from the lines, in file order (feed order), without the database.
///
/// A stream that starts at version 1 in the file is checked from genesis. One that starts later
/// (its earlier events are in an older archive) is checked from `anchor`'s hash when the caller
/// knows it, else from its first line onwards (that first link is counted as `continued`). Memory
/// grows with the number of streams, not events.
package struct ExportFileVerifier {
    /// What a file holds and whether it verified.
    package struct Report: Sendable {
        package var events = 0
        package var breaks: [ChainBreak] = []
        /// Streams whose first line continues an earlier file, without a known anchor.
        package var continued = 0
        /// Each stream's last version and hash in the file.
        package var heads: [String: (version: Int64, hash: [UInt8])] = [:]
        package var first: FeedPosition?
        package var last: FeedPosition?
    }

    /// The stored version and hash before a stream's first line, when known.
    package var anchor: (String) throws -> (version: Int64, hash: [UInt8])? = { _ in nil }

    package init() {}

    package func run(read: () throws -> [UInt8]) throws -> Report {
        var report = Report()
        var broken = Set<String>()
        var lineNumber = 0
        try NDJSONLines.forEach(read: read) { bytes in
            lineNumber += 1
            func bad(_ what: String) -> EventStoreError { EventStoreError(.invalidEvent, "line \(lineNumber): \(what)") }
            let value: JSONValue
            do { value = try JSONValue.parse(bytes) } catch { throw bad("not valid JSON (\(error))") }
            guard let streamId = value["streamId"]?.stringValue, let version = value["streamVersion"]?.int64Value,
                  let eventIdText = value["eventId"]?.stringValue, let eventId = UUID(uuidString: eventIdText),
                  let type = value["type"]?.stringValue, let data = value["data"], let metadata = value["metadata"],
                  let recorded = value["recordedTime"]?.stringValue.flatMap(Self.micros), let hashText = value["hash"]?.stringValue,
                  let found = Self.bytes(hex: hashText), found.count == 32,
                  let position = value["globalPosition"]?.stringValue.flatMap({ Int64($0) }),
                  let txid = value["transactionId"]?.stringValue.flatMap({ UInt64($0) })
            else { throw bad("not an exported event (needs streamId, streamVersion, eventId, type, data, metadata, recordedTime, hash, globalPosition, transactionId)") }
            report.events += 1
            let feed = FeedPosition(transactionId: txid, globalPosition: position)
            if report.first == nil { report.first = feed }
            report.last = feed
            if broken.contains(streamId) { return }
            var previous: (version: Int64, hash: [UInt8])
            if let head = report.heads[streamId] {
                previous = head
            } else if version == 1 {
                previous = (0, HashChain.genesis)
            } else if let anchored = try anchor(streamId) {
                previous = anchored
            } else {
                report.continued += 1
                report.heads[streamId] = (version, found)
                return
            }
            guard version == previous.version + 1 else {
                report.breaks.append(ChainBreak(streamId: streamId, version: previous.version + 1, kind: .gap(found: version)))
                broken.insert(streamId)
                return
            }
            let expected = HashChain.hash(previous: previous.hash, streamId: streamId, version: version, eventId: eventId, type: type,
                                          canonicalData: data.canonicalBytes(), canonicalMetadata: metadata.canonicalBytes(), recordedAtMicros: recorded)
            guard expected == found else {
                report.breaks.append(ChainBreak(streamId: streamId, version: version, kind: .hashMismatch(expected: expected, found: found)))
                broken.insert(streamId)
                return
            }
            report.heads[streamId] = (version, found)
        }
        return report
    }

    /// `2026-03-01T08:00:00.123456Z` (the export's form) as microseconds since the Unix epoch.
    static func micros(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count == 27, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 46, b[26] == 90 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard (48...57).contains(b[index]) else { return nil }
                value = value * 10 + Int64(b[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), let fraction = number(20..<26),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        // Days from civil (proleptic Gregorian), Howard Hinnant's algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days * 86_400 + hour * 3_600 + minute * 60 + second) * 1_000_000) + fraction
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}

/// Splits a byte stream read in chunks into lines (without their newlines), skipping blank ones.
enum NDJSONLines {
    static func forEach(read: () throws -> [UInt8], _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        var pending = [UInt8]()
        func line(_ bytes: ArraySlice<UInt8>) throws {
            guard !bytes.allSatisfy({ $0 == 32 || $0 == 13 }) else { return }
            try body(bytes)
        }
        while true {
            let chunk = try read()
            if chunk.isEmpty { break }
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: 10) {
                if pending.isEmpty {
                    try line(chunk[start..<newline])
                } else {
                    pending.append(contentsOf: chunk[start..<newline])
                    try line(pending[...])
                    pending.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
            pending.append(contentsOf: chunk[start...])
        }
        if !pending.isEmpty { try line(pending[...]) }
    }
}
