import Foundation
import Glibc
import Postgres
import Testing

@Suite struct SubprocessTests {
    /// A test process holds sockets to servers it talks to; a child that inherited one would keep the
    /// connection open after the test closed it, and the server would never see the hang-up.
    @Test func spawnedProgramsInheritNoDescriptorsButTheirStandardStreams() throws {
        let fd = open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        try #require(fd > 2)
        defer { close(fd) }
        let outcome = try Subprocess.run("/bin/ls", ["/proc/self/fd"])
        #expect(outcome.status == 0)
        let open = outcome.stdout.split(whereSeparator: \.isNewline).compactMap { Int32($0) }
        #expect(!open.contains(fd), "the child inherited descriptor \(fd): \(open)")
        #expect(Set(open).isSuperset(of: [0, 1, 2]))
    }
}
