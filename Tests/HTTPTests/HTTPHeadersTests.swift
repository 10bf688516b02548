import HTTP
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test(.timeLimit(.minutes(1)))
    func lookupIgnoresCaseAndKeepsOrderOfRepeatedNames() {
        let headers: HTTPHeaders = ["Accept": "a", "X-Id": "1", "accept": "b"]
        #expect(headers["ACCEPT"] == "a")
        #expect(headers.values("accept") == ["a", "b"])
        #expect(headers.contains("x-id"))
        #expect(!headers.contains("x-i"))
        #expect(headers["X-Ide"] == nil)
        #expect(headers.map(\.name) == ["Accept", "X-Id", "accept"])
    }

    @Test(.timeLimit(.minutes(1)))
    func removeDropsEveryFieldOfThatName() {
        var headers: HTTPHeaders = ["Accept": "a", "X-Id": "1", "accept": "b"]
        headers.remove("ACCEPT")
        #expect(headers.map(\.name) == ["X-Id"])
    }
}
