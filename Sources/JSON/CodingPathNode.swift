/// A coding path kept as a linked list, so nesting costs one node and no array copy.
///
/// `JSONValueDecoder` and `JSONValueEncoder` only need the path as an array for errors and for
/// the rare caller that reads `codingPath`; building it on demand keeps the common path cheap.
indirect enum CodingPathNode {
    /// The top-level value.
    case root
    /// A member of an object or (as an ``IndexCodingKey``) an element of an array, below `parent`.
    case key(any CodingKey, parent: CodingPathNode)

    /// The path from the top, as `Codable` reports it.
    var codingPath: [any CodingKey] {
        var reversed: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return reversed.reversed()
            case .key(let key, let parent):
                reversed.append(key)
                node = parent
            }
        }
    }

    /// The path with `key` appended when there is one.
    func appending(_ key: (any CodingKey)?) -> CodingPathNode {
        guard let key else { return self }
        return .key(key, parent: self)
    }

    /// ``codingPath`` plus `key` when there is one, for errors about a member not yet entered.
    func codingPath(appending key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return codingPath + [key]
    }
}
