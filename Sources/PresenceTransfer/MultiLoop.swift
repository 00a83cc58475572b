import CCurl
import Foundation

/// The session's network thread: one curl multi handle driven by `curl_multi_poll`.
///
/// Only on the network thread. Every easy handle, every ``Transfer`` and all admission state is
/// touched here and nowhere else; other threads reach it only through ``Session/post(_:)``.
final class MultiLoop {
    private let session: Session
    private let multi: UnsafeMutableRawPointer
    private let perHostLimit: Int
    /// Started transfers by task identifier: waiting for a slot, active, or awaiting a disposition.
    private var transfers: [Int: Transfer] = [:]
    /// Started transfers not yet handed to curl, because their host is at its limit.
    private var waiting: [Transfer] = []
    /// Transfers handed to curl, by host key.
    private var activeByHost: [String: Int] = [:]
    private var invalidation: Bool?  // nil: not invalidated; true: cancel everything
    /// Set when a transfer starts waiting, a slot frees, a suspension ends or a priority changes:
    /// only then can the admission pass change anything.
    private var admissionNeeded = false

    init(session: Session) {
        self.session = session
        self.multi = session.multi.raw
        self.perHostLimit = max(1, session.configuration.httpMaximumConnectionsPerHost)
    }

    func run() {
        var stillRunning: Int32 = 0
        while true {
            for command in session.takeCommands() { handle(command) }
            if admissionNeeded { admitWaitingTransfers() }
            curl_multi_perform(multi, &stillRunning)
            let finished = collectFinishedTransfers()
            enforceIdleTimeouts()
            if invalidation != nil, transfers.isEmpty, !session.hasUnfinishedTasks { break }
            // Freed slots are refilled at once rather than after the next poll wakes up.
            if finished > 0, admissionNeeded, !waiting.isEmpty { continue }
            curl_multi_poll(multi, nil, 0, pollTimeoutMilliseconds(), nil)
        }
        session.loopDidExit()
    }

    // MARK: Commands

    private func handle(_ command: Session.Command) {
        switch command {
        case let .start(task):
            start(task)
        case let .pause(identifier):
            transfers[identifier]?.setSuspended(true)
        case let .unpause(identifier):
            transfers[identifier]?.setSuspended(false)
            admissionNeeded = true
        case let .cancel(identifier, resumeDataHandler):
            guard let transfer = transfers[identifier] else {
                if let resumeDataHandler { session.delegateQueue.addOperation { resumeDataHandler(nil) } }
                return
            }
            let resumeData = resumeDataHandler == nil ? nil : transfer.makeResumeData()
            if let resumeDataHandler { transfer.deliverResumeData(resumeData, to: resumeDataHandler) }
            finish(transfer, error: .cancelled, keepPartialFile: resumeData != nil)
        case let .disposition(identifier, disposition):
            guard let transfer = transfers[identifier] else { return }
            apply(disposition, to: transfer)
        case .reconsider:
            admissionNeeded = true
        case let .invalidate(cancelAll):
            invalidation = cancelAll
            if cancelAll {
                for transfer in Array(transfers.values) { finish(transfer, error: .cancelled) }
            }
        }
    }

    private func start(_ task: SessionTask) {
        if invalidation == true {
            finishUnstarted(task, error: .cancelled)
            return
        }
        if let error = task.error {  // e.g. unusable resume data
            finishUnstarted(task, error: error)
            return
        }
        switch Transfer.make(task: task, session: session) {
        case let .success(transfer):
            transfers[task.taskIdentifier] = transfer
            waiting.append(transfer)
            admissionNeeded = true
        case let .failure(error):
            finishUnstarted(task, error: error)
        }
    }

    private func finishUnstarted(_ task: SessionTask, error: TransferError) {
        session.recordCompletion(of: task, error: error, delegate: session.effectiveDelegate(for: task))
    }

    private func apply(_ disposition: ResponseDisposition, to transfer: Transfer) {
        switch disposition {
        case .cancel:
            finish(transfer, error: .cancelled)
        case .allow, .becomeDownload:
            if disposition == .becomeDownload {
                let previous = transfer.task.taskIdentifier
                if let error = transfer.becomeDownload() {
                    finish(transfer, error: error)
                    return
                }
                // The transfer now belongs to the new download task: re-key it before anything
                // (such as finishing a bodiless response) looks it up by identifier.
                transfers[previous] = nil
                transfers[transfer.task.taskIdentifier] = transfer
            }
            if transfer.phase == .awaitingFinalDisposition {
                finish(transfer, error: nil)
            } else {
                transfer.dispositionArrived()
            }
        }
    }

    // MARK: Admission: per-host limits and priority

    private func admitWaitingTransfers() {
        admissionNeeded = false
        guard !waiting.isEmpty else { return }
        waiting.sort { lhs, rhs in
            lhs.priority != rhs.priority ? lhs.priority > rhs.priority : lhs.task.taskIdentifier < rhs.task.taskIdentifier
        }
        var stillWaiting: [Transfer] = []
        stillWaiting.reserveCapacity(waiting.count)
        for transfer in waiting {
            if transfer.isSuspended || activeByHost[transfer.hostKey, default: 0] >= perHostLimit {
                stillWaiting.append(transfer)
                continue
            }
            activeByHost[transfer.hostKey, default: 0] += 1
            transfer.phase = .active
            transfer.noteActivity()
            curl_multi_add_handle(multi, transfer.easy)
        }
        waiting = stillWaiting
    }

    // MARK: Completion

    /// Completes every transfer curl reports done; returns how many.
    private func collectFinishedTransfers() -> Int {
        var remaining: Int32 = 0
        var finished = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            guard let transfer = Transfer.owner(of: easy) else { continue }
            transferDidEnd(transfer, code: code)
            finished += 1
        }
        return finished
    }

    private func transferDidEnd(_ transfer: Transfer, code: CURLcode) {
        releaseSlot(of: transfer)
        let error = transfer.error(for: code)
        if error == nil, transfer.needsFinalDisposition() {
            transfer.phase = .awaitingFinalDisposition
            return
        }
        finish(transfer, error: error)
    }

    private func releaseSlot(of transfer: Transfer) {
        guard transfer.phase == .active else { return }
        curl_multi_remove_handle(multi, transfer.easy)
        activeByHost[transfer.hostKey, default: 1] -= 1
        transfer.phase = .detached
        admissionNeeded = true
    }

    private func finish(_ transfer: Transfer, error: TransferError?, keepPartialFile: Bool = false) {
        if transfer.phase == .waiting {
            waiting.removeAll { $0 === transfer }
        }
        releaseSlot(of: transfer)
        transfers[transfer.task.taskIdentifier] = nil
        transfer.complete(with: error, keepPartialFile: keepPartialFile)
    }

    // MARK: Timeouts

    private func enforceIdleTimeouts() {
        let now = DispatchTime.now().uptimeNanoseconds
        for transfer in transfers.values where transfer.isIdle(at: now) {
            finish(transfer, error: .timedOut(.idle, seconds: transfer.idleTimeout))
        }
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        var timeout: UInt64 = 1000
        for transfer in transfers.values {
            if let deadline = transfer.idleDeadline {
                timeout = min(timeout, deadline > now ? (deadline - now) / 1_000_000 + 1 : 0)
            }
        }
        return Int32(timeout)
    }
}
