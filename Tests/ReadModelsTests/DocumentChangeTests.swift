import JSON
import ReadModels
import Testing

@Suite struct DocumentChangeTests {
    static let value: JSONValue = ["vehicleId": "v-1", "lastLocation": ["location": ["latitude": 52.5, "longitude": 13.25]], "exists": true]

    @Test func aDocumentGivenAsCanonicalBytesEqualsAndHashesAsTheSameDocumentGivenAsAValue() throws {
        let asValue = DocumentChange(collection: "vehicle_states", key: "k", document: Self.value)
        let asBytes = DocumentChange(collection: "vehicle_states", key: "k", canonical: Self.value.canonicalBytes())
        #expect(asValue == asBytes)
        #expect(Set([asValue, asBytes]).count == 1)
        #expect(asBytes.document == Self.value)
        #expect(!asBytes.isDeletion)
        var written: [UInt8] = []
        asBytes.writeCanonical(to: &written)
        #expect(written == Self.value.canonicalBytes())
        #expect(asValue.canonicalBytes == asBytes.canonicalBytes)
    }

    @Test func documentsThatDifferOrLiveElsewhereAreNotEqualAndADeletionHasNoBytes() throws {
        let asBytes = DocumentChange(collection: "vehicle_states", key: "k", canonical: Self.value.canonicalBytes())
        #expect(asBytes != DocumentChange(collection: "vehicle_states", key: "other", canonical: Self.value.canonicalBytes()))
        #expect(asBytes != DocumentChange(collection: "vehicles", key: "k", canonical: Self.value.canonicalBytes()))
        #expect(asBytes != DocumentChange(collection: "vehicle_states", key: "k", document: ["vehicleId": "v-2"]))
        let deletion = DocumentChange(collection: "vehicle_states", key: "k", document: nil)
        #expect(deletion.isDeletion && deletion.canonicalBytes == nil && deletion.document == nil)
        #expect(asBytes != deletion)
        var written: [UInt8] = []
        deletion.writeCanonical(to: &written)
        #expect(written.isEmpty)
    }
}
