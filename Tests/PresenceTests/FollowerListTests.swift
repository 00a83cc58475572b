import Foundation
@testable import Presence
import Testing

@Suite("Follower lists, variants and file names")
struct FollowerListTests {
    @Test func twitterV1Users() throws {
        let json = """
        {"users": [
          {"id_str": "12", "screen_name": "jack", "profile_image_url_https": "https://pbs.twimg.com/profile_images/1/a_normal.jpg"},
          {"id": 13, "screen_name": "old", "profile_image_url": "http://pbs.twimg.com/profile_images/2/b_normal.png"},
          {"id_str": "14", "screen_name": "nopic"},
          {"id_str": "15", "screen_name": "evil", "profile_image_url_https": "file:///etc/passwd"},
          "not an object"
        ], "next_cursor": 0}
        """
        let list = try FollowerList.parse(Data(json.utf8))
        #expect(list.format == .twitterV1)
        #expect(list.entries.count == 5)
        #expect(list.entries[0].id == "12" && list.entries[0].screenName == "jack")
        #expect(list.entries[0].imageURL?.absoluteString == "https://pbs.twimg.com/profile_images/1/a_normal.jpg")
        #expect(list.entries[1].id == "13" && list.entries[1].imageURL?.scheme == "http")
        #expect(list.entries[2].problem == "no profile_image_url_https")
        #expect(list.entries[3].problem?.hasPrefix("not an http(s) URL") == true)
        #expect(list.entries[4].problem == "entry 5 is not a JSON object")
    }

    @Test func bareArrayAndV2() throws {
        let bare = try FollowerList.parse(Data(#"[{"id_str":"1","screen_name":"a","profile_image_url_https":"https://x.test/a.png"}]"#.utf8))
        #expect(bare.format == .twitterV1 && bare.entries.count == 1)
        let v2 = try FollowerList.parse(Data(#"{"data":[{"id":"9","username":"nine","profile_image_url":"https://x.test/n_normal.jpg"}],"meta":{}}"#.utf8))
        #expect(v2.format == .twitterV2)
        #expect(v2.entries[0].screenName == "nine" && v2.entries[0].id == "9")
    }

    @Test func urlList() throws {
        let text = "# my followers\n\nhttps://x.test/a/alice.png\n  http://x.test/bob.jpg  \nftp://x.test/c.png\n# done\n"
        let list = try FollowerList.parse(Data(text.utf8))
        #expect(list.format == .urlList)
        #expect(list.entries.count == 3)
        #expect(list.entries[0].screenName == "alice")
        #expect(list.entries[1].imageURL?.absoluteString == "http://x.test/bob.jpg")
        #expect(list.entries[2].problem == "line 5: not an http(s) URL: ftp://x.test/c.png")
    }

    @Test("malformed JSON is one clear error naming the line and column")
    func malformedJSON() {
        let json = "{\n  \"users\": [\n    {\"id_str\": \"1\",, }\n  ]\n}"
        #expect(throws: FollowerListError.self) { try FollowerList.parse(Data(json.utf8)) }
        do {
            _ = try FollowerList.parse(Data(json.utf8))
        } catch {
            guard case let .malformedJSON(line, column, _) = error else { Issue.record("got \(error)"); return }
            #expect(line == 3)
            #expect(column == 20)
        }
        #expect(throws: FollowerListError.unrecognisedJSON("no \"users\" or \"data\" array (keys: foo)")) {
            try FollowerList.parse(Data(#"{"foo": 1}"#.utf8))
        }
        #expect(throws: FollowerListError.empty) { try FollowerList.parse(Data("# nothing\n".utf8)) }
        #expect(throws: FollowerListError.notText) { try FollowerList.parse(Data([0xFF, 0xFE, 0x00, 0xD8])) }
    }

    @Test("Twitter avatar variants", arguments: [
        (AvatarVariant.bigger, "https://pbs.twimg.com/profile_images/1/abc_bigger.jpg"),
        (.normal, "https://pbs.twimg.com/profile_images/1/abc_normal.jpg"),
        (.size200, "https://pbs.twimg.com/profile_images/1/abc_200x200.jpg"),
        (.size400, "https://pbs.twimg.com/profile_images/1/abc_400x400.jpg"),
        (.original, "https://pbs.twimg.com/profile_images/1/abc.jpg"),
        (.asListed, "https://pbs.twimg.com/profile_images/1/abc_normal.jpg"),
    ])
    func variants(variant: AvatarVariant, expected: String) {
        let url = URL(string: "https://pbs.twimg.com/profile_images/1/abc_normal.jpg")!
        #expect(variant.apply(to: url).absoluteString == expected)
        let plain = URL(string: "https://x.test/photo.jpg")!
        #expect(variant.apply(to: plain) == plain)
        let noExtension = URL(string: "https://pbs.twimg.com/profile_images/1/abc_normal")!
        #expect(AvatarVariant.size400.apply(to: noExtension).absoluteString.hasSuffix("abc_400x400"))
    }

    @Test("file names are safe, bounded and unique")
    func fileNames() {
        var namer = FileNamer()
        func name(_ screenName: String?, _ id: String?, _ index: Int = 0) -> String {
            namer.name(for: FollowerEntry(index: index, id: id, screenName: screenName), fileExtension: "png")
        }
        #expect(name("jack", "12") == "jack-12.png")
        #expect(name("jack", "12") == "jack-12-2.png")
        #expect(name("JACK", "12") == "JACK-12-3.png")
        #expect(name("../../etc/passwd", "1") == "etc_passwd-1.png")
        #expect(name("..", nil, 4) == "entry-5.png")
        #expect(name(".hidden", "2") == "hidden-2.png")
        #expect(name("nul\u{0}byte\u{7}", "3") == "nul_byte-3.png")
        #expect(name(nil, "77") == "user-77.png")
        let long = name(String(repeating: "x", count: 500), String(repeating: "9", count: 100))
        #expect(long.count <= FileNamer.maximumNameLength + FileNamer.maximumIDLength + 6)
        for sample in ["a/b", "a\\b", "ユーザー", "CON", "  ", "\n"] {
            let result = name(sample, "5")
            #expect(!result.contains("/") && !result.contains("\\") && !result.hasPrefix(".") && !result.contains(".."))
            #expect(result.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 32 })
        }
    }
}
