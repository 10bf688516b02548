import Foundation

/// A binary of this package installed next to the running one: `waymark-bench` beside `waymark`,
/// and the reverse.
///
/// The benchmarks are a binary of their own so the server's stays small; `waymark bench` runs
/// `waymark-bench`, and `bench memory` runs `waymark serve`, each found in the directory of this
/// process's executable (symbolic links resolved), as `swift build` and an install leave them.
package enum SiblingExecutable {
    /// The path of the executable `name` next to this process's, or an error saying where it was looked for.
    package static func path(_ name: String) throws -> String {
        let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw MissingSibling(name: name, path: path) }
        return path
    }
}

/// The sibling executable is not installed: names what is missing and how to get it.
package struct MissingSibling: Error, CustomStringConvertible {
    package let name: String
    package let path: String

    package var description: String {
        "\(name) is not installed next to this binary (no executable \(path)); build it with `swift build --product \(name)` and keep the two binaries in one directory"
    }
}
