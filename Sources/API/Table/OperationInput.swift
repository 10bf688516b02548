import HTTP
import JSON

/// What a REST operation reads: the request, its path parameters and query, the admitted caller
/// and (when the operation `readsBody`) the parsed body.
struct OperationInput {
    let api: WaymarkAPI
    let request: HTTPRequest
    let path: PathParameters
    var query: QueryParameters
    let admission: Admission
    var body: JSONValue = .null

    /// The verified caller; only operations whose access is `token` or `roles` ask for it.
    var caller: Principal {
        guard let caller = admission.caller else { preconditionFailure("\(request.path): the operation's access verifies no caller") }
        return caller
    }

    /// The rider's reader; only operations whose access is `rider` ask for it.
    var reader: JourneyReader {
        guard let reader = admission.reader else { preconditionFailure("\(request.path): the operation's access reads no rider") }
        return reader
    }

    var command: CommandContext { CommandContext(caller: caller, requestId: request.requestId) }
}
