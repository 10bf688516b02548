import EventStore
import Foundation
import Projections
import WaymarkCLI

/// What each live projection runner spent per event it applied, beside what a rebuild's replay spends.
///
/// A runner counts the thread CPU of its own stages (fold, encode, mirror, the Swift side of its
/// write); its PostgreSQL session's CPU is read from `/proc/<backend pid>/stat`, which works
/// because the bench's cluster runs on this machine. Feed reads are not in it: the node's runners
/// share them through the feed cache.
struct BenchProjectionCost {
    struct Sample {
        var stages: ProjectionRunner.Stages
        var backendPID: Int32?
        var backendSeconds: Double
    }

    /// One runner's cost over a window, in µs per applied event.
    struct PerEvent {
        var name: String
        var events: Int64
        var fold: Double
        var encode: Double
        var publish: Double
        var write: Double
        var postgres: Double
        var documentsPerEvent: Double
        var total: Double { fold + encode + publish + write + postgres }

        var summary: String {
            func f(_ value: Double) -> String { String(format: "%.1f", value) }
            return "\(name) \(f(total)) µs (fold \(f(fold)), encode \(f(encode)), mirror \(f(publish)), write \(f(write)) + PostgreSQL \(f(postgres)); "
                + "\(String(format: "%.2f", documentsPerEvent)) documents written per event, \(BenchTable.grouped(Int(events))) events)"
        }
    }

    var samples: [String: Sample] = [:]

    static func now(_ runners: [ProjectionRunner]) -> BenchProjectionCost {
        var cost = BenchProjectionCost()
        for runner in runners {
            let status = runner.status
            cost.samples[runner.name] = Sample(stages: status.stages, backendPID: status.backendPID,
                                               backendSeconds: status.backendPID.map(processSeconds) ?? 0)
        }
        return cost
    }

    /// Each runner's cost per event applied between `before` and `self` (runners that applied nothing are left out).
    func perEvent(since before: BenchProjectionCost) -> [PerEvent] {
        samples.keys.sorted().compactMap { name in
            guard let after = samples[name], let earlier = before.samples[name] else { return nil }
            let stages = after.stages.since(earlier.stages)
            guard stages.events > 0 else { return nil }
            let events = Double(stages.events)
            // A new session (the runner reloaded) has its own counter: count only what this one did.
            let backend = after.backendPID == earlier.backendPID ? after.backendSeconds - earlier.backendSeconds : after.backendSeconds
            return PerEvent(name: name, events: stages.events, fold: Double(stages.foldCPUMicros) / events, encode: Double(stages.encodeCPUMicros) / events,
                            publish: Double(stages.publishCPUMicros) / events, write: Double(stages.writeCPUMicros) / events,
                            postgres: max(0, backend) * 1_000_000 / events, documentsPerEvent: Double(stages.documentsWritten) / events)
        }
    }

    /// User and system seconds of one process, from `/proc/<pid>/stat` (0 when it cannot be read).
    static func processSeconds(_ pid: Int32) -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / ticks
    }

    /// What replaying the feed costs each projection: `Rebuilder.verify` (a rebuild's fold into a
    /// fresh projector, up to the live checkpoint, compared with the live table) under this
    /// process's CPU, per event replayed. PostgreSQL's side of reading the feed is left out, as it
    /// is from the live cost (other clusters share the machine, and the reads' sessions end with
    /// them). Throws if any live document differs from its rebuild. Run it with nothing else going
    /// on: the whole process is counted.
    static func replay(store: EventStore, url: String, runners: [ProjectionRunner]) async throws -> [(name: String, events: Int64, micros: Double)] {
        var results: [(String, Int64, Double)] = []
        for entry in ProjectionCatalog.all {
            let events = runners.first { $0.name == entry.name }?.status.eventsApplied ?? 0
            let before = BenchCPU.now()
            let differences = try await Rebuilder.verify(store: store, conninfo: url, make: entry.make)
            let after = BenchCPU.now()
            guard differences.isEmpty else {
                throw BenchFailure("the live \(entry.name) read model differs from its rebuild: \(differences.prefix(3).joined(separator: "; "))")
            }
            let seconds = after.process - before.process
            results.append((entry.name, events, events > 0 ? seconds * 1_000_000 / Double(events) : 0))
        }
        return results
    }
}
