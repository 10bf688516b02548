/// The values a path template captures: `{provider}` and `{id}` (no operation has more).
struct PathParameters: Sendable, Hashable {
    var provider = ""
    var id = ""
}

/// Finds the operations at a request path by walking its segments down a tree built from the
/// path templates: a request costs a few byte comparisons per segment, whatever the table's size,
/// and allocates only the segment list and the captured values.
///
/// A template segment is a literal (`trips`, `journey:stream`), `{provider}`, `{id}`, or `{id}` with a
/// verb suffix (`{id}:share`). At each segment literals are tried first, then suffixed captures, then
/// the plain capture; a capture never matches an empty segment (nor a suffix an empty id). A dead end
/// backtracks, so `trips/x:share/journey` is the journey of trip `x:share`.
struct RouteTrie: Sendable {
    enum Slot: Sendable { case provider, id }

    struct Node: Sendable {
        var literals: [(segment: [UInt8], node: Int)] = []
        /// Suffixed captures first, the plain one (empty suffix) last.
        var captures: [(slot: Slot, suffix: [UInt8], node: Int)] = []
        /// The operations (indices into the table) ending here, by method.
        var methods: [(method: String, operation: Int)] = []
    }

    private(set) var nodes = [Node()]

    /// Adds `template` for `method`; a template and method registered twice is a programming error.
    mutating func insert(_ template: String, method: String, operation: Int) {
        var index = 0
        for part in template.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if part.hasPrefix("{"), let close = part.firstIndex(of: "}") {
                let name = part[part.index(after: part.startIndex)..<close]
                let slot: Slot = name == "provider" ? .provider : .id
                precondition(name == "provider" || name == "id", "\(template): unknown capture {\(name)}")
                let suffix = Array(part[part.index(after: close)...].utf8)
                if let existing = nodes[index].captures.first(where: { $0.slot == slot && $0.suffix == suffix }) {
                    index = existing.node
                } else {
                    nodes.append(Node())
                    let capture = (slot: slot, suffix: suffix, node: nodes.count - 1)
                    if suffix.isEmpty { nodes[index].captures.append(capture) } else { nodes[index].captures.insert(capture, at: 0) }
                    index = nodes.count - 1
                }
            } else {
                let literal = Array(part.utf8)
                if let existing = nodes[index].literals.first(where: { $0.segment == literal }) {
                    index = existing.node
                } else {
                    nodes.append(Node())
                    nodes[index].literals.append((segment: literal, node: nodes.count - 1))
                    index = nodes.count - 1
                }
            }
        }
        precondition(!nodes[index].methods.contains { $0.method == method }, "\(method) \(template) is in the table twice")
        nodes[index].methods.append((method: method, operation: operation))
    }

    /// The operations by method at `path` and the values captured on the way; nil when no template matches.
    func find(_ path: String) -> (methods: [(method: String, operation: Int)], parameters: PathParameters)? {
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !segments.isEmpty else { return nil }
        var parameters = PathParameters()
        guard let node = walk(segments.dropFirst(), from: 0, &parameters) else { return nil }
        return (nodes[node].methods, parameters)
    }

    private func walk(_ segments: ArraySlice<Substring.UTF8View>, from index: Int, _ parameters: inout PathParameters) -> Int? {
        guard let segment = segments.first else { return nodes[index].methods.isEmpty ? nil : index }
        let rest = segments.dropFirst()
        for literal in nodes[index].literals where segment.elementsEqual(literal.segment) {
            if let found = walk(rest, from: literal.node, &parameters) { return found }
        }
        guard !segment.isEmpty else { return nil }
        for capture in nodes[index].captures {
            var value = segment
            if !capture.suffix.isEmpty {
                guard segment.count > capture.suffix.count, segment.suffix(capture.suffix.count).elementsEqual(capture.suffix) else { continue }
                value = segment.dropLast(capture.suffix.count)
            }
            let saved = parameters
            switch capture.slot {
            case .provider: parameters.provider = String(Substring(value))
            case .id: parameters.id = String(Substring(value))
            }
            if let found = walk(rest, from: capture.node, &parameters) { return found }
            parameters = saved
        }
        return nil
    }
}
