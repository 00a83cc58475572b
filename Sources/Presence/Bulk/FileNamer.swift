/// Builds output file names from user data: sanitised screen name plus id, no path separators,
/// no `..`, no control or non-ASCII characters, bounded length, duplicates disambiguated
/// (case-insensitively, for case-insensitive file systems).
///
/// A value type; use one instance per output folder, from one thread at a time.
public struct FileNamer: Sendable {
    /// Longest name part kept from a screen name.
    public static let maximumNameLength = 48
    /// Longest id part kept.
    public static let maximumIDLength = 24

    private var used: Set<String> = []

    /// Creates a namer with no names taken.
    public init() {}

    /// A unique, safe file name for `entry` with `fileExtension` (without the dot).
    public mutating func name(for entry: FollowerEntry, fileExtension: String) -> String {
        let name = Self.sanitise(entry.screenName ?? "", limit: Self.maximumNameLength)
        let id = Self.sanitise(entry.id ?? "", limit: Self.maximumIDLength)
        var base: String
        switch (name.isEmpty, id.isEmpty) {
        case (false, false): base = "\(name)-\(id)"
        case (false, true): base = name
        case (true, false): base = "user-\(id)"
        case (true, true): base = "entry-\(entry.index + 1)"
        }
        var candidate = base
        var counter = 2
        while used.contains(candidate.lowercased()) {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        used.insert(candidate.lowercased())
        return "\(candidate).\(Self.sanitise(fileExtension, limit: 8))"
    }

    /// Keeps ASCII letters, digits, `_` and `-`; everything else becomes `_`, runs collapse, and
    /// leading or trailing `_`/`-` go. Dots are not kept, so no name can be `..` or hide as `.x`.
    public static func sanitise(_ text: String, limit: Int) -> String {
        var result = ""
        var lastWasReplacement = false
        for scalar in text.unicodeScalars {
            let isSafe = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
            if isSafe {
                result.unicodeScalars.append(scalar)
                lastWasReplacement = false
            } else if !lastWasReplacement {
                result.append("_")
                lastWasReplacement = true
            }
            if result.count >= limit { break }
        }
        let trimmed = result.trimmingCharacters(in: ["_", "-"])
        return String(trimmed.prefix(limit))
    }
}

private extension String {
    func trimmingCharacters(in characters: Set<Character>) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
