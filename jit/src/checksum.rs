//! The artifact cache's entry checksum: CRC-32C (Castagnoli) over four interleaved streams of
//! 8-byte words, 16 bytes in all.
//!
//! The checksum guards against corruption and truncation, not against someone who can write
//! the cache directory (who could write a matching SHA-256 as easily), so it needs no
//! cryptographic hash — and SHA-256 was, at about 1.5 GB/s even with the x86 SHA extension,
//! the largest cost of loading a bigger entry. Word `i` of the input (the tail is padded with
//! zeros to a whole word) goes to stream `i % 4`; each stream is a CRC-32C, so a burst of up to
//! 32 flipped bits within any stream, and so any one flipped byte, is always caught. Four
//! streams rather than one because `crc32` has a latency of three cycles and a throughput of
//! one: the streams run side by side. The length is hashed last, so that zero padding and
//! truncation to a word boundary change the result.
//!
//! x86-64 with SSE4.2 (asked of glibc's feature words, as [`crate::sha256`] does, else the
//! standard library's detection) runs the `crc32` instruction; elsewhere a table computes the
//! same values. The tests check both against each other and against the standard check value.

/// The Castagnoli polynomial, bit-reflected.
const POLY: u32 = 0x82F6_3B78;

/// Streams, and so 4-byte CRCs, in a checksum.
const STREAMS: usize = 4;

/// The checksum of `bytes`.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn checksum(bytes: &[u8]) -> [u8; 4 * STREAMS] {
    let mut crc = [!0u32; STREAMS];
    #[cfg(target_arch = "x86_64")]
    if sse42::available() {
        // SAFETY: the CPU has SSE4.2 (just checked), the only extension `words` is compiled
        // to use.
        unsafe { sse42::words(&mut crc, bytes) };
        return finish(crc, bytes.len());
    }
    portable_words(&mut crc, bytes);
    finish(crc, bytes.len())
}

/// Folds in the length and lays the streams out little-endian.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn finish(mut crc: [u32; STREAMS], len: usize) -> [u8; 4 * STREAMS] {
    let mut out = [0u8; 4 * STREAMS];
    for (i, (o, c)) in out.chunks_exact_mut(4).zip(&mut crc).enumerate() {
        *c = !portable_word(*c, (len as u64).rotate_left(16 * i as u32));
        o.copy_from_slice(&c.to_le_bytes());
    }
    out
}

/// The words of `bytes` (the last one zero-padded), each into stream `i % STREAMS`.
fn portable_words(crc: &mut [u32; STREAMS], bytes: &[u8]) {
    for (i, w) in bytes.chunks(8).enumerate() {
        let mut word = [0u8; 8];
        word[..w.len()].copy_from_slice(w);
        crc[i % STREAMS] = portable_word(crc[i % STREAMS], u64::from_le_bytes(word));
    }
}

/// CRC-32C of one little-endian word, as the `crc32` instruction computes it (no inversion).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn portable_word(mut crc: u32, word: u64) -> u32 {
    for byte in word.to_le_bytes() {
        crc = TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

/// The byte-at-a-time table of the reflected polynomial.
static TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[cfg(target_arch = "x86_64")]
mod sse42 {
    use super::STREAMS;
    use std::arch::x86_64::_mm_crc32_u64;

    /// Whether the `crc32` instruction can run: by the feature words glibc recorded at start
    /// where it keeps them (leaf 1 ECX bit 20, no `cpuid`), else by the standard library's
    /// detection. Answered once.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(super) fn available() -> bool {
        static AVAILABLE: vm::hit::Lazy<bool> = vm::hit::Lazy::new();
        *AVAILABLE.get_or_init(detect)
    }

    // A function rather than a closure: a closure made a `fn` pointer is called through a
    // shim that would lie outside the section.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn detect() -> bool {
        crate::isa::glibc_cpu_active(0, 2, 20)
            .unwrap_or_else(|| std::is_x86_feature_detected!("sse4.2"))
    }

    /// [`super::portable_words`] with the `crc32` instruction.
    ///
    /// # Safety
    /// The CPU must support SSE4.2.
    #[target_feature(enable = "sse4.2")]
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(super) unsafe fn words(crc: &mut [u32; STREAMS], bytes: &[u8]) {
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let mut c = [0u64; STREAMS];
        for (c, &crc) in c.iter_mut().zip(crc.iter()) {
            *c = u64::from(crc);
        }
        let mut blocks = bytes.chunks_exact(8 * STREAMS);
        for block in &mut blocks {
            c[0] = _mm_crc32_u64(c[0], word(&block[0..8]));
            c[1] = _mm_crc32_u64(c[1], word(&block[8..16]));
            c[2] = _mm_crc32_u64(c[2], word(&block[16..24]));
            c[3] = _mm_crc32_u64(c[3], word(&block[24..32]));
        }
        for (i, w) in blocks.remainder().chunks(8).enumerate() {
            let mut padded = [0u8; 8];
            padded[..w.len()].copy_from_slice(w);
            c[i] = _mm_crc32_u64(c[i], u64::from_le_bytes(padded));
        }
        for (out, c) in crc.iter_mut().zip(c) {
            *out = c as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CRC-32C's standard check value: the CRC of "123456789" (one stream, bytewise).
    #[test]
    fn the_table_is_crc32c() {
        let mut crc = !0u32;
        for &b in b"123456789" {
            crc = TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
        }
        assert_eq!(!crc, 0xE306_9283);
    }

    fn data(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 131 + i / 7) as u8).collect()
    }

    /// The instruction and the table agree, at every length around the block and word sizes.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_instruction_and_the_table_agree() {
        if !sse42::available() {
            return;
        }
        for n in (0..80).chain([1000, 4096, 4099]) {
            let bytes = data(n);
            let mut hw = [!0u32; STREAMS];
            // SAFETY: `available` said the CPU has SSE4.2.
            unsafe { sse42::words(&mut hw, &bytes) };
            let mut sw = [!0u32; STREAMS];
            portable_words(&mut sw, &bytes);
            assert_eq!(hw, sw, "{n} bytes");
        }
    }

    /// Every flipped bit, every truncation and every appended zero changes the checksum.
    #[test]
    fn flips_truncations_and_zero_padding_are_caught() {
        let bytes = data(300);
        let sum = checksum(&bytes);
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert_ne!(checksum(&b), sum, "byte {i} bit {bit}");
            }
        }
        for n in 0..bytes.len() {
            assert_ne!(checksum(&bytes[..n]), sum, "truncated to {n}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert_ne!(checksum(&padded), sum);
    }
}
