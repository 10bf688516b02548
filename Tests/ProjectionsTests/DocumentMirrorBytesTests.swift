import JSON
@testable import Projections
import ReadModels
import Testing

@Suite struct DocumentMirrorBytesTests {
    private static let document: JSONValue = try! JSONValue.parse(#"""
        {"name":"providers/p/trips/t-1","n":1.50,"big":12345678901234567890,"e":-1.5e-7,"s":"quote \" slash \\ \u0001 é 🚕",
         "a":[1,{"x":null,"y":true}],"empty":{},"none":[]}
        """#)

    @Test func aMirroredDocumentReadsBackAsTheSameJSONWithTheSameBytes() throws {
        let mirror = DocumentMirror()
        mirror.reset([DocumentChange(collection: "trips", key: "t-1", document: Self.document)])
        let read = mirror.document("trips", "t-1")
        #expect(read == .some(.some(Self.document)))
        let known = try #require(read)
        let value = try #require(known)
        #expect(value.compactBytes() == Self.document.compactBytes(), "member order and number lexemes kept")
        #expect(mirror.documentBytes("trips", "t-1") == .some(.some(Self.document.compactBytes())))
    }

    @Test func appliedChangesReplaceAndDeleteDocumentsAndOnlyKeptCollectionsAreHeld() {
        let mirror = DocumentMirror(collections: ["trips"])
        mirror.reset([DocumentChange(collection: "trips", key: "t-1", document: ["v": 1]),
                      DocumentChange(collection: "other", key: "o-1", document: ["v": 1])])
        #expect(mirror.document("other", "o-1") == .some(nil))
        mirror.apply([DocumentChange(collection: "trips", key: "t-1", document: ["v": 2]),
                      DocumentChange(collection: "trips", key: "t-2", document: Self.document)])
        #expect(mirror.document("trips", "t-1") == .some(.some(["v": 2])))
        #expect(mirror.document("trips", "t-2") == .some(.some(Self.document)))
        mirror.apply([DocumentChange(collection: "trips", key: "t-1", document: nil)])
        #expect(mirror.document("trips", "t-1") == .some(nil))
        mirror.invalidate()
        #expect(mirror.document("trips", "t-2") == nil)
        #expect(mirror.documentBytes("trips", "t-2") == nil)
    }
}
