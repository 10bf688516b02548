import Foundation

/// CPU time used so far by this process and by every PostgreSQL process of the machine.
///
/// Rates on a shared two-core machine move by several percent from run to run; the CPU a case
/// spends per event moves much less, so benches report it beside their rates.
struct BenchCPU {
    /// Seconds of user and system time of this process (all its threads; not its children, so not wrk).
    var process: Double
    /// Seconds of user and system time of the processes named `postgres` now running (backends,
    /// WAL writer, checkpointer...; those of another cluster on the machine too).
    var postgres: Double

    static func now() -> BenchCPU {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return BenchCPU(process: seconds(usage.ru_utime) + seconds(usage.ru_stime), postgres: postgresSeconds())
    }

    private static func postgresSeconds() -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        var total = 0.0
        for entry in entries where entry.first?.isNumber == true {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                  stat[stat.index(after: open)..<close] == "postgres" else { continue }
            // After the name: state is field 3, utime field 14 and stime field 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            total += (user + system) / ticks
        }
        return total
    }

    /// "server 41.2 µs, PostgreSQL 20.5 µs, 61.7 µs in all per event; both cores 93% busy".
    static func perEvent(from before: BenchCPU, to after: BenchCPU, events: Int, seconds: Double) -> String {
        let server = after.process - before.process, postgres = after.postgres - before.postgres
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        func micros(_ value: Double) -> String { String(format: "%.1f µs", value / Double(max(1, events)) * 1_000_000) }
        let busy = seconds > 0 ? (server + postgres) / (seconds * cores) * 100 : 0
        return "server \(micros(server)), PostgreSQL \(micros(postgres)), \(micros(server + postgres)) in all per event; "
            + "\(Int(cores)) cores \(String(format: "%.0f", busy))% busy with the two (wrk and the rest not counted)"
    }
}
