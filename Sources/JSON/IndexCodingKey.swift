/// The coding key of an array element in a coding path: `Index 3`, integer value 3.
///
/// Foundation's `JSONDecoder` names elements the same way, so paths read alike. The string is
/// built only when asked for, since a key is made for every element but read only in errors.
struct IndexCodingKey: CodingKey {
    let index: Int

    init(_ index: Int) {
        self.index = index
    }

    init?(stringValue: String) {
        return nil
    }

    init(intValue: Int) {
        self.index = intValue
    }

    var stringValue: String { "Index \(index)" }

    var intValue: Int? { index }
}
