@testable import HTTP
import Testing

@Suite struct BlanksTests {
    @Test(arguments: [
        ("application/json", "application/json"), ("  application/json\t", "application/json"), ("\t \t", ""), ("", ""),
        (" a b ", "a b"), ("x\n", "x\n"), ("\u{00A0}x", "\u{00A0}x"),
    ])
    func onlySpacesAndTabsAroundTheTextAreTrimmed(text: String, trimmed: String) {
        #expect(String(text.trimmingBlanks) == trimmed)
        #expect(String(text[...].trimmingBlanks) == trimmed)
    }
}
