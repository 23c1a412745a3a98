//! Files that are not UTF-8 with LF or CRLF line endings, edited losslessly.
//!
//! The matcher works on UTF-8 text split at `\n`. A file in a legacy encoding (Latin-1,
//! Windows-1252, Shift-JIS, …) is detected with `chardetng`, decoded with `encoding_rs`, and
//! accepted only when encoding the decoded text gives back exactly the file's bytes; a CR-only
//! file (classic Mac) is read with its `\r` as `\n`. The edit runs on that text and the result is
//! written back in the file's own encoding and line endings, so every untouched byte stays. New
//! text that the encoding cannot hold is refused, naming the character.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8};

/// How a file's bytes become the matcher's text and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transcoding {
    encoding: &'static Encoding,
    cr_only: bool,
}

impl Transcoding {
    /// How to read `bytes`: `Ok(None)` for UTF-8 with LF or CRLF endings (read as they are),
    /// `Ok(Some(_))` for a file that must be transcoded, `Err` (why, in words) for bytes that no
    /// encoding reads back exactly: binary data, or text in no single encoding.
    pub fn of(bytes: &[u8]) -> Result<Option<Transcoding>, String> {
        let utf8 = std::str::from_utf8(bytes).ok();
        // Valid UTF-8 is text whatever it holds; anything else with NUL bytes is binary data no
        // legacy text encoding explains.
        if utf8.is_none() && memchr::memchr(0, bytes).is_some() {
            return Err("binary (it holds NUL bytes)".into());
        }
        let encoding = match utf8 {
            Some(_) => UTF_8,
            None => {
                let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
                detector.feed(bytes, true);
                detector.guess(None, Utf8Detection::Deny)
            }
        };
        let text = utf8.map(str::to_string).or_else(|| {
            encoding
                .decode_without_bom_handling_and_without_replacement(bytes)
                .map(|t| t.into_owned())
        });
        let Some(text) = text else {
            return Err(format!(
                "neither UTF-8 nor valid {} (the closest guess)",
                encoding.name()
            ));
        };
        let cr_only = text.contains('\r') && !text.contains('\n');
        if encoding == UTF_8 && !cr_only {
            return Ok(None);
        }
        let t = Transcoding { encoding, cr_only };
        match t.encode(&t.decode(bytes)) {
            Ok(back) if back == bytes => Ok(Some(t)),
            _ => Err(format!(
                "not read back byte for byte as {}",
                encoding.name()
            )),
        }
    }

    /// The file's bytes as the matcher's text (UTF-8, `\n` line ends for a CR-only file).
    /// Only for bytes [`Transcoding::of`] accepted.
    pub fn decode(&self, bytes: &[u8]) -> String {
        let (text, _) = self.encoding.decode_without_bom_handling(bytes);
        if self.cr_only {
            text.replace('\r', "\n")
        } else {
            text.into_owned()
        }
    }

    /// The matcher's text back in the file's encoding and line endings; refuses (naming the
    /// first such character) text the encoding cannot hold.
    pub fn encode(&self, text: &str) -> Result<Vec<u8>, String> {
        let text = if self.cr_only {
            text.replace('\n', "\r")
        } else {
            text.to_string()
        };
        if self.encoding == UTF_8 {
            return Ok(text.into_bytes());
        }
        let (bytes, _, unmappable) = self.encoding.encode(&text);
        if !unmappable {
            return Ok(bytes.into_owned());
        }
        let bad = text
            .chars()
            .find(|c| self.encoding.encode(c.encode_utf8(&mut [0; 4])).2)
            .unwrap_or('\u{fffd}');
        Err(format!(
            "the new text holds {bad:?} (U+{:04X}), which {} cannot encode",
            u32::from(bad),
            self.encoding.name()
        ))
    }

    /// What the report calls this reading, e.g. `windows-1252` or `CR-only line endings`.
    pub fn describe(&self) -> String {
        match (self.encoding == UTF_8, self.cr_only) {
            (true, _) => "UTF-8 with CR-only line endings".into(),
            (false, true) => format!("{} with CR-only line endings", self.encoding.name()),
            (false, false) => self.encoding.name().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_with_lf_or_crlf_needs_no_transcoding() {
        assert_eq!(Transcoding::of(b"a\nb\r\n\xc3\xa9\n"), Ok(None));
    }

    #[test]
    fn latin1_round_trips_and_refuses_what_it_cannot_hold() {
        let bytes = b"# caf\xe9 cr\xe8me\nname = 'Jos\xe9'\n";
        let t = Transcoding::of(bytes).unwrap().unwrap();
        let text = t.decode(bytes);
        assert_eq!(text, "# café crème\nname = 'José'\n");
        assert_eq!(t.encode(&text).unwrap(), bytes);
        let edited = text.replace("José", "Zoë");
        assert_eq!(
            t.encode(&edited).unwrap(),
            b"# caf\xe9 cr\xe8me\nname = 'Zo\xeb'\n"
        );
        let err = t.encode("x = '\u{2603}'\n").unwrap_err();
        assert!(err.contains("U+2603"), "{err}");
    }

    #[test]
    fn shift_jis_round_trips() {
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(
            "# 日本語のコメントです。文字コードの判定に十分な長さの文章を書きます。\nx = 1\n",
        );
        let t = Transcoding::of(&bytes).unwrap().unwrap();
        assert_eq!(t.describe(), "Shift_JIS");
        assert_eq!(t.encode(&t.decode(&bytes)).unwrap(), bytes.as_ref());
    }

    #[test]
    fn cr_only_files_are_read_as_lines_and_keep_cr() {
        let t = Transcoding::of(b"a\rb\r").unwrap().unwrap();
        assert_eq!(t.decode(b"a\rb\r"), "a\nb\n");
        assert_eq!(t.encode("a\nB\n").unwrap(), b"a\rB\r");
    }

    #[test]
    fn binary_is_refused() {
        assert!(Transcoding::of(b"a\0b\xff").is_err());
        assert_eq!(
            Transcoding::of(b"a\0b"),
            Ok(None),
            "UTF-8 with NUL stays text"
        );
    }
}
