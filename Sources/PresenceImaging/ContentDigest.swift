/// A stable 64-bit FNV-1a digest, for comparing bytes across runs, processes and strategies
/// (ETags in the fixture server, identical-output checks in benchmarks and tests).
/// Not a cryptographic hash.
///
/// Stateless; safe to use from any thread.
public enum ContentDigest {
    /// The digest of `bytes` as 16 lowercase hex digits.
    public static func fnv1a64<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
