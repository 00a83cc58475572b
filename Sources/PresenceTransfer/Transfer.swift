import CCurl
import Foundation

/// One task's transfer as the network thread sees it: its easy handle, the response being parsed,
/// where the body goes, and the callbacks libcurl calls.
///
/// Only on the network thread (libcurl calls the callbacks from inside `curl_multi_perform` and
/// `curl_easy_pause` there). Events leave it through the task's ``DelegateChannel``.
final class Transfer {
    enum Phase {
        /// Started, waiting for a connection slot to its host.
        case waiting
        /// Handed to curl.
        case active
        /// curl is done but no body came; waiting for the delegate's answer to the response.
        case awaitingFinalDisposition
        /// Removed from curl, not yet completed.
        case detached
        /// Completed; the easy handle is freed.
        case completed
    }

    private(set) var task: SessionTask
    let session: Session
    let easy: UnsafeMutableRawPointer
    let hostKey: String
    let idleTimeout: TimeInterval
    var phase: Phase = .waiting

    private let configuration: SessionConfiguration
    private var delegate: (any SessionDelegate)?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var resumeData: ResumeData?

    // Response parsing
    private var blockStatus = 0
    private var blockHeaders: [(name: String, value: String)] = []
    private var lastCompleteBlock: (status: Int, headers: [(name: String, value: String)])?
    private var response: HTTPResponse?
    private var awaitingDisposition = false
    private let wantsResponseDisposition: Bool

    // Body
    private var bytesReceived: Int64 = 0
    private var fileOffset: Int64 = 0
    private var download: DownloadFile?
    private var abortReason: TransferError?

    // Timing and suspension
    private(set) var isSuspended = false
    private var lastActivity: UInt64 = DispatchTime.now().uptimeNanoseconds
    private var lastBytesSent: Int64 = 0

    var priority: Float { task.priority }

    private init(task: SessionTask, session: Session, easy: UnsafeMutableRawPointer, hostKey: String) {
        self.task = task
        self.session = session
        self.easy = easy
        self.hostKey = hostKey
        self.configuration = session.configuration
        self.idleTimeout = task.originalRequest.timeoutInterval ?? session.configuration.timeoutIntervalForRequest
        self.delegate = session.effectiveDelegate(for: task)
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        self.wantsResponseDisposition = task is SessionDataTask
            && (delegate as? any SessionDataDelegate)?.waitsForResponseDisposition == true
    }

    /// Creates the transfer and configures its easy handle, or says why the request cannot be sent.
    static func make(task: SessionTask, session: Session) -> Result<Transfer, TransferError> {
        let request = task.originalRequest
        let configuration = session.configuration
        guard let scheme = request.url.scheme?.lowercased() else {
            return .failure(.unsupportedURL(request.url.absoluteString))
        }
        guard configuration.allowedProtocols.contains(scheme) else {
            return .failure(.disallowedProtocol(scheme))
        }
        guard let host = request.url.host, !host.isEmpty else {
            return .failure(.unsupportedURL(request.url.absoluteString))
        }
        guard let easy = curl_easy_init() else {
            return .failure(.other(CurlDiagnostic(code: -1, message: "curl_easy_init failed")))
        }
        let port = request.url.port ?? (scheme == "https" ? 443 : 80)
        let transfer = Transfer(task: task, session: session, easy: easy, hostKey: "\(scheme)://\(host.lowercased()):\(port)")
        if let download = task as? SessionDownloadTask {
            if let error = transfer.prepareDownload(resumeData: download.resumeData) {
                transfer.freeHandle()
                return .failure(error)
            }
        }
        transfer.configureHandle(request: request)
        return .success(transfer)
    }

    /// The transfer a callback's easy handle belongs to.
    static func owner(of easy: UnsafeMutableRawPointer) -> Transfer? {
        var pointer: UnsafeMutableRawPointer?
        guard presence_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer) == CURLE_OK, let pointer else { return nil }
        return Unmanaged<Transfer>.fromOpaque(pointer).takeUnretainedValue()
    }

    // MARK: Configuration

    private func configureHandle(request: Request) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = presence_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me)
        _ = presence_easy_setopt_string(easy, CURLOPT_URL, request.url.absoluteString)
        _ = presence_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = presence_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = presence_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))

        _ = presence_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { pointer, size, count, userdata in
            guard let pointer, let userdata else { return 0 }
            return Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().receiveBody(pointer, size * count)
        }
        _ = presence_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        _ = presence_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { pointer, size, count, userdata in
            guard let pointer, let userdata else { return 0 }
            return Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().receiveHeaderLine(pointer, size * count)
        }
        _ = presence_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)

        // Redirects and protocols: http and https only, also across redirects.
        let protocols = configuration.allowedProtocols.sorted().joined(separator: ",")
        _ = presence_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, protocols)
        _ = presence_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, protocols)
        _ = presence_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, configuration.followsRedirects ? 1 : 0)
        _ = presence_easy_setopt_long(easy, CURLOPT_MAXREDIRS, max(0, configuration.maximumRedirects))

        // Timeouts. The idle timeout is enforced by the loop, to the millisecond.
        _ = presence_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        _ = presence_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.timeoutIntervalForResource))

        // TLS and limits.
        _ = presence_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, configuration.verifiesTLSPeer ? 1 : 0)
        _ = presence_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, configuration.verifiesTLSPeer ? 2 : 0)
        if let limit = configuration.maximumResponseBytes {
            _ = presence_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit))
        }
        if configuration.acceptsCompressedResponses {
            _ = presence_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "gzip, deflate")
        }

        // Method and body.
        let method = request.method.uppercased()
        if method == "HEAD" {
            _ = presence_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        } else if method == "POST" || request.body != nil {
            let body = request.body ?? Data()
            _ = presence_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { raw in
                _ = presence_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            }
            if method != "POST" { _ = presence_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method) }
            _ = presence_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
            _ = presence_easy_setopt_xferinfo_callback(easy) { userdata, _, _, _, uploaded in
                guard let userdata else { return 0 }
                Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().uploadProgressed(Int64(uploaded))
                return 0
            }
            _ = presence_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me)
        } else if method != "GET" {
            _ = presence_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)
        }

        // Header fields: the session's, then the request's (which win), then resume validators.
        var fields = configuration.httpAdditionalHeaders
        for field in request.headers { fields[field.name] = field.value }
        if !fields.contains("User-Agent") { fields["User-Agent"] = configuration.userAgent }
        if request.body != nil, !fields.contains("Expect") { fields["Expect"] = "" }
        if let resumeData {
            fields["Range"] = "bytes=\(resumeData.bytesReceived)-"
            fields["If-Range"] = resumeData.validator
        }
        for field in fields {
            let line = field.value.isEmpty ? "\(field.name):" : "\(field.name): \(field.value)"
            headerList = curl_slist_append(headerList, line)
        }
        _ = presence_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
    }

    private static func milliseconds(_ interval: TimeInterval) -> Int {
        guard interval.isFinite, interval > 0 else { return 0 }
        return Int(min(interval * 1000, Double(Int32.max)).rounded(.up))
    }

    // MARK: libcurl callbacks

    private func receiveHeaderLine(_ pointer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        noteActivity()
        let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            blockStatus = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            blockHeaders = []
        } else if line == "\r\n" || line == "\n" {
            lastCompleteBlock = (blockStatus, blockHeaders)
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespacesAndNewlines)
            blockHeaders.append((name: name, value: value))
        }
        return count
    }

    private func receiveBody(_ pointer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        if response == nil {
            let response = prepareResponse()
            if let limit = configuration.maximumResponseBytes, response.expectedContentLength > limit {
                abortReason = .responseTooLarge(limit: limit)
                return 0
            }
            if wantsResponseDisposition {
                awaitingDisposition = true
                deliverResponseForDisposition(response)
                return presence_curl_writefunc_pause()
            }
        }
        if awaitingDisposition { return presence_curl_writefunc_pause() }
        let total = bytesReceived + Int64(count)
        if let limit = configuration.maximumResponseBytes, total > limit {
            abortReason = .responseTooLarge(limit: limit)
            return 0
        }
        bytesReceived = total
        noteActivity()
        task.update { $0.countOfBytesReceived = total }
        if let download {
            if let error = download.write(pointer, count) {
                abortReason = error
                return 0
            }
            deliverDownloadProgress(written: Int64(count))
        } else if let dataDelegate = delegate as? any SessionDataDelegate, let dataTask = task as? SessionDataTask {
            let chunk = Data(bytes: pointer, count: count)
            task.channel.send { [session] in dataDelegate.session(session, dataTask: dataTask, didReceive: chunk) }
        }
        return count
    }

    private func uploadProgressed(_ uploaded: Int64) {
        guard uploaded != lastBytesSent else { return }
        lastBytesSent = uploaded
        noteActivity()
        task.update { $0.countOfBytesSent = uploaded }
    }

    // MARK: Response

    /// Builds the final response from the last complete header block and records it on the task.
    @discardableResult
    private func prepareResponse() -> HTTPResponse {
        var effectiveURL: UnsafePointer<CChar>?
        _ = presence_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effectiveURL)
        let url = effectiveURL.flatMap { URL(string: String(cString: $0)) } ?? task.originalRequest.url
        var status = lastCompleteBlock?.status ?? 0
        if status == 0 {
            var code = 0
            _ = presence_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
            status = code
        }
        let headers = HTTPHeaders(lastCompleteBlock?.headers ?? [])
        var length: curl_off_t = -1
        _ = presence_easy_getinfo_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        let decoded = configuration.acceptsCompressedResponses && headers["Content-Encoding"].map { !$0.isEmpty && $0 != "identity" } == true
        let expected: Int64 = decoded ? -1 : Int64(length)
        let response = HTTPResponse(statusCode: status, headers: headers, url: url, expectedContentLength: expected)
        self.response = response
        if download != nil, let resumeData { adoptResumedBody(response: response, resumeData: resumeData) }
        let totalExpected = expected >= 0 ? expected + fileOffset : -1
        task.update {
            $0.response = response
            $0.countOfBytesExpectedToReceive = totalExpected
            $0.currentRequest.url = url
        }
        return response
    }

    private func deliverResponseForDisposition(_ response: HTTPResponse) {
        guard let dataDelegate = delegate as? any SessionDataDelegate, let dataTask = task as? SessionDataTask else { return }
        let identifier = dataTask.taskIdentifier
        let handler: @Sendable (ResponseDisposition) -> Void = { [session] disposition in
            session.post(.disposition(identifier, disposition))
        }
        task.channel.send { [session] in
            dataDelegate.session(session, dataTask: dataTask, didReceive: response, completionHandler: handler)
        }
    }

    /// Called when curl finished without delivering any body (empty body, HEAD, 204, 304).
    /// Returns true when the delegate must still answer the response before the task completes.
    func needsFinalDisposition() -> Bool {
        guard response == nil else { return false }
        let response = prepareResponse()
        guard wantsResponseDisposition else { return false }
        awaitingDisposition = true
        deliverResponseForDisposition(response)
        return true
    }

    /// The delegate answered `.allow` (or `.becomeDownload`) while the transfer was paused for it.
    func dispositionArrived() {
        guard awaitingDisposition else { return }
        awaitingDisposition = false
        noteActivity()
        if !isSuspended { curl_easy_pause(easy, CURLPAUSE_CONT) }
    }

    // MARK: Downloads

    private func prepareDownload(resumeData: ResumeData?) -> TransferError? {
        self.resumeData = resumeData
        do throws(TransferError) {
            if let resumeData {
                download = try DownloadFile(resuming: resumeData.partialFilePath)
            } else {
                download = try DownloadFile(creatingIn: configuration.temporaryDirectory)
            }
            return nil
        } catch {
            return error
        }
    }

    private func adoptResumedBody(response: HTTPResponse, resumeData: ResumeData) {
        guard let download else { return }
        if response.statusCode == 206 {
            fileOffset = resumeData.bytesReceived
        } else {
            fileOffset = 0
            download.truncate()
        }
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength + fileOffset : -1
        guard let downloadDelegate = delegate as? any SessionDownloadDelegate, let downloadTask = task as? SessionDownloadTask else { return }
        let offset = fileOffset
        task.channel.send { [session] in
            downloadDelegate.session(session, downloadTask: downloadTask, didResumeAtOffset: offset, expectedTotalBytes: expected)
        }
    }

    private func deliverDownloadProgress(written: Int64) {
        guard let downloadDelegate = delegate as? any SessionDownloadDelegate, let downloadTask = task as? SessionDownloadTask else { return }
        let total = fileOffset + bytesReceived
        let expected = response.map { $0.expectedContentLength >= 0 ? $0.expectedContentLength + fileOffset : -1 } ?? -1
        task.channel.send { [session] in
            downloadDelegate.session(session, downloadTask: downloadTask, didWriteData: written, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
        }
    }

    /// Turns the data task into a download task after `.becomeDownload`; returns an error when no
    /// temporary file could be made.
    func becomeDownload() -> TransferError? {
        guard let dataTask = task as? SessionDataTask, download == nil else { return nil }
        do throws(TransferError) {
            download = try DownloadFile(creatingIn: configuration.temporaryDirectory)
        } catch {
            return error
        }
        let downloadTask = SessionDownloadTask(
            session: session, identifier: session.nextTaskIdentifier(), request: dataTask.originalRequest,
            delegate: dataTask.delegate, resumeData: nil, channel: dataTask.channel
        )
        let snapshot = dataTask.state.withLock { $0 }
        downloadTask.update {
            $0.state = snapshot.state == SessionTask.State.suspended ? .suspended : .running
            $0.hasStarted = true
            $0.taskDescription = snapshot.taskDescription
            $0.response = snapshot.response
            $0.currentRequest = snapshot.currentRequest
            $0.priority = snapshot.priority
            $0.countOfBytesExpectedToReceive = snapshot.countOfBytesExpectedToReceive
        }
        dataTask.update { $0.state = .completed }
        session.replaceTask(dataTask, with: downloadTask)
        task = downloadTask
        if let dataDelegate = delegate as? any SessionDataDelegate {
            task.channel.send { [session] in dataDelegate.session(session, dataTask: dataTask, didBecome: downloadTask) }
        }
        return nil
    }

    /// Resume data for a download cancelled now, or nil when it cannot be resumed safely.
    func makeResumeData() -> Data? {
        guard let download, let response, [200, 206].contains(response.statusCode), bytesReceived + fileOffset > 0 else { return nil }
        let strongTag = response.entityTag.flatMap { $0.hasPrefix("W/") ? nil : $0 }
        guard let validator = strongTag ?? response.lastModified else { return nil }
        let request = task.originalRequest
        let value = ResumeData(
            url: request.url, method: request.method,
            headers: request.headers.fields.map { [$0.name, $0.value] },
            partialFilePath: download.url.path,
            bytesReceived: fileOffset + bytesReceived,
            validator: validator,
            expectedTotalBytes: task.countOfBytesExpectedToReceive
        )
        return value.encoded()
    }

    func deliverResumeData(_ data: Data?, to handler: @escaping @Sendable (Data?) -> Void) {
        task.channel.send { handler(data) }
    }

    // MARK: Suspension and timeouts

    func setSuspended(_ suspended: Bool) {
        guard suspended != isSuspended else { return }
        isSuspended = suspended
        guard phase == .active else { return }
        if suspended {
            curl_easy_pause(easy, CURLPAUSE_ALL)
        } else {
            noteActivity()
            if !awaitingDisposition { curl_easy_pause(easy, CURLPAUSE_CONT) }
        }
    }

    func noteActivity() {
        lastActivity = DispatchTime.now().uptimeNanoseconds
    }

    /// When the idle timeout fires for this transfer, or nil while it cannot (waiting for a slot,
    /// suspended, or waiting for the delegate).
    var idleDeadline: UInt64? {
        guard phase == .active, !isSuspended, !awaitingDisposition, idleTimeout > 0, idleTimeout.isFinite else { return nil }
        return lastActivity &+ UInt64(idleTimeout * 1_000_000_000)
    }

    func isIdle(at now: UInt64) -> Bool {
        idleDeadline.map { now >= $0 } ?? false
    }

    // MARK: Completion

    /// The error for curl's result code, or nil on success.
    func error(for code: CURLcode) -> TransferError? {
        if let abortReason { return abortReason }
        if code == CURLE_OK { return nil }
        let text = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        let diagnostic = CurlDiagnostic(code: Int32(code.rawValue), message: text)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            var connectTime: curl_off_t = 0
            _ = presence_easy_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &connectTime)
            return connectTime == 0
                ? .timedOut(.connect, seconds: configuration.connectTimeout)
                : .timedOut(.total, seconds: configuration.timeoutIntervalForResource)
        case CURLE_COULDNT_CONNECT:
            return .cannotConnect(diagnostic)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .cannotResolveHost(diagnostic)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionLost(diagnostic)
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects(limit: configuration.maximumRedirects)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .disallowedProtocol(Self.scheme(inMessage: text) ?? "unknown")
        case CURLE_URL_MALFORMAT:
            return .unsupportedURL(task.originalRequest.url.absoluteString)
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: configuration.maximumResponseBytes ?? 0)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return .tlsFailure(diagnostic)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_RANGE_ERROR:
            return .badServerResponse(diagnostic)
        default:
            return .other(diagnostic)
        }
    }

    /// Pulls the scheme out of curl's `Protocol "file" not supported or disabled in libcurl`.
    private static func scheme(inMessage message: String) -> String? {
        let parts = message.split(separator: "\"")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    /// Ends the task: tells the delegate about the file (downloads), records the outcome, sends
    /// `didCompleteWithError` and frees the easy handle.
    func complete(with error: TransferError?, keepPartialFile: Bool) {
        guard phase != .completed else { return }
        phase = .completed
        let task = self.task
        let session = self.session
        let delegate = self.delegate
        if let download {
            download.close()
            if error == nil {
                let location = download.url
                let downloadDelegate = delegate as? any SessionDownloadDelegate
                let downloadTask = task as? SessionDownloadTask
                task.channel.send {
                    if let downloadDelegate, let downloadTask {
                        downloadDelegate.session(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
                    }
                    try? FileManager.default.removeItem(at: location)
                }
            } else if !keepPartialFile {
                download.remove()
            }
        }
        session.recordCompletion(of: task, error: error, delegate: delegate)
        self.delegate = nil
        freeHandle()
    }

    private func freeHandle() {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer.deallocate()
    }
}
