//! A file read whole when its size was just looked at: one open and the reads, without the
//! two further looks at its size and the seek a general read (`Dir::read`) makes. Per file of
//! a batch that is three system calls of seven, on each of the reads a batch makes of it.

use std::io::Read;
use std::path::Path;

/// The bytes of `at` under `dir`, read into a buffer of `size` (as a look at it just said; a
/// file that grew meanwhile is read whole all the same).
pub fn read_sized(
    dir: &cap_std::fs::Dir,
    at: impl AsRef<Path>,
    size: u64,
) -> std::io::Result<Vec<u8>> {
    let file = dir.open(at)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    (&file).take(u64::MAX).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_whole_whatever_size_was_said() {
        let tmp = tempfile::tempdir().unwrap();
        let dir =
            cap_std::fs::Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        dir.write("f", &bytes).unwrap();
        for said in [0, 10, 100_000, 1 << 20] {
            assert_eq!(read_sized(&dir, "f", said).unwrap(), bytes);
        }
        assert!(read_sized(&dir, "missing", 0).is_err());
    }
}
