import Foundation
import WaymarkCLI

/// The figures of one benchmark run, rendered as aligned text or as Markdown.
///
/// The first row is the reference (the raw ceiling); every other row carries its ratio to it,
/// because on a shared, noisy machine only figures measured side by side in one run compare.
struct BenchTable {
    /// One measured case.
    struct Row {
        let name: String
        let events: Int
        let elapsed: Duration

        var seconds: Double {
            let parts = elapsed.components
            return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        }

        var rate: Double { seconds > 0 ? Double(events) / seconds : 0 }
    }

    enum Format: String {
        case text, markdown
    }

    let rows: [Row]
    /// Lines printed under the table (ratios between cases, targets).
    let notes: [String]

    var reference: Row? { rows.first }

    func ratio(_ row: Row) -> Double {
        guard let reference, reference.rate > 0 else { return 0 }
        return row.rate / reference.rate
    }

    func render(_ format: Format) -> String {
        let header = ["case", "events", "seconds", "events/s", "ratio to ceiling"]
        let cells = rows.enumerated().map { index, row in
            [row.name, Self.grouped(row.events), String(format: "%.2f", row.seconds), Self.grouped(Int(row.rate.rounded())),
             index == 0 ? "1 (reference)" : String(format: "%.3f", ratio(row))]
        }
        return Self.render(header: header, cells: cells, notes: notes, format: format)
    }

    /// Any table: the first column left-aligned, the others right-aligned; notes below it.
    static func render(header: [String], cells: [[String]], notes: [String], format: Format) -> String {
        switch format {
        case .markdown:
            var lines = ["| " + header.joined(separator: " | ") + " |", "|---" + String(repeating: "|---:", count: header.count - 1) + "|"]
            lines += cells.map { "| " + $0.joined(separator: " | ") + " |" }
            if !notes.isEmpty { lines.append("") }
            lines += notes.map { "- " + $0 }
            return lines.joined(separator: "\n")
        case .text:
            let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
            func line(_ values: [String]) -> String {
                values.enumerated().map { column, value in
                    let pad = String(repeating: " ", count: widths[column] - value.count)
                    return column == 0 ? value + pad : pad + value
                }.joined(separator: "  ")
            }
            var lines = [line(header)] + cells.map(line)
            if !notes.isEmpty { lines.append("") }
            lines += notes
            return lines.joined(separator: "\n")
        }
    }

    /// `1234567` as `1,234,567`, independent of the locale.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
