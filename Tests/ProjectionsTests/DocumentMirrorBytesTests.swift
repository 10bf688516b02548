import JSON
@testable import Projections
import ReadModels
import Synchronization
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

    @Test func anInvalidatedMirrorTakesNoBatchAndTellsItsObserverNothingUntilItIsReset() {
        let mirror = DocumentMirror()
        let heard = Mutex<[String]>([])
        mirror.observe { update in
            heard.withLock {
                switch update {
                case .reset: $0.append("reset")
                case .applied(let changes): $0.append("applied \(changes.count)")
                case .invalidated: $0.append("invalidated")
                }
            }
        }
        mirror.reset([DocumentChange(collection: "trips", key: "t-1", document: ["v": 1])])
        mirror.invalidate()
        // A runner that folded on while its failed write was in flight: this batch is folded again after the reload.
        mirror.apply([DocumentChange(collection: "trips", key: "t-1", document: ["v": 2])])
        #expect(mirror.count == 0 && !mirror.isValid)
        mirror.reset([DocumentChange(collection: "trips", key: "t-1", document: ["v": 1])])
        #expect(mirror.document("trips", "t-1") == .some(.some(["v": 1])))
        #expect(heard.withLock { $0 } == ["reset", "invalidated", "reset"])
    }

    @Test func aMirrorWithALimitKeepsTheMostRecentlyWrittenDocumentsAndCannotAnswerForOthers() {
        let mirror = DocumentMirror(documentLimit: 8)
        mirror.reset((0..<8).map { DocumentChange(collection: "trips", key: "t-\($0)", document: ["v": 0]) })
        // at its limit and whole: a document it does not hold does not exist
        #expect(mirror.document("trips", "missing") == .some(nil))
        mirror.apply([DocumentChange(collection: "trips", key: "t-0", document: ["v": 1])])
        mirror.apply([DocumentChange(collection: "trips", key: "t-8", document: ["v": 1])])
        #expect(mirror.count == 9, "an eighth past the limit before it looks")
        mirror.apply([DocumentChange(collection: "trips", key: "t-9", document: ["v": 1]), DocumentChange(collection: "trips", key: "t-10", document: ["v": 1])])
        // the limit again, keeping the documents written last
        #expect(mirror.count == 8)
        for key in ["t-0", "t-8", "t-9", "t-10"] {
            #expect(mirror.document("trips", key) == .some(.some(["v": 1])), "\(key) was written last")
        }
        #expect((1..<8).filter { mirror.document("trips", "t-\($0)") == nil }.count == 3, "three of the oldest went (11 written, 8 kept)")
        // having let documents go, it cannot say a document does not exist
        #expect(mirror.document("trips", "missing") == nil)
        #expect(mirror.documentBytes("trips", "missing") == nil)
    }

    @Test func aMirrorResetWithMoreDocumentsThanItsLimitHoldsItsLimitAndSendsReadersToTheTable() {
        let mirror = DocumentMirror(documentLimit: 2)
        mirror.reset((0..<5).map { DocumentChange(collection: "trips", key: "t-\($0)", document: ["v": 0]) })
        #expect(mirror.count == 2)
        #expect(mirror.document("trips", "t-4") == nil)
        #expect(mirror.document("trips", "t-0") == .some(.some(["v": 0])))
    }
}
