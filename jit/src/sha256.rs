//! SHA-256 for the artifact cache's keys and the in-process kernel map, choosing
//! its x86 SHA-extension path without executing `cpuid`.
//!
//! `sha2` picks its SHA-extension path with its own `cpuid` probe (the `cpufeatures` crate),
//! and so does the standard library's detection; a `cpuid` traps to the hypervisor on virtual
//! machines — several microseconds each, a large share of a cache hit. This module asks the
//! feature words glibc recorded at process start ([`crate::isa::glibc_cpu_active`], which the
//! cache key reads too; the standard library's detection elsewhere), and runs the SHA-extension
//! rounds itself (after `sha2`'s `x86` backend). Everywhere else, and on x86 without the extension, blocks go
//! to `sha2::compress256`. The tests check both paths against `sha2::Sha256`.

use sha2::digest::generic_array::GenericArray;

/// The initial hash value (FIPS 180-4, 5.3.3).
const H0: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// An incremental SHA-256.
#[derive(Clone)]
pub struct Sha256 {
    state: [u32; 8],
    block: [u8; 64],
    /// Bytes in `block`.
    filled: usize,
    /// Bytes hashed so far.
    total: u64,
}

impl Default for Sha256 {
    fn default() -> Sha256 {
        Sha256::new()
    }
}

impl Sha256 {
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn new() -> Sha256 {
        Sha256 {
            state: H0,
            block: [0; 64],
            filled: 0,
            total: 0,
        }
    }

    /// The digest of `bytes`.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn digest(bytes: &[u8]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(bytes);
        h.finalize()
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.total = self.total.wrapping_add(bytes.len() as u64);
        if self.filled > 0 {
            let n = bytes.len().min(64 - self.filled);
            self.block[self.filled..self.filled + n].copy_from_slice(&bytes[..n]);
            self.filled += n;
            bytes = &bytes[n..];
            if self.filled < 64 {
                return;
            }
            let block = self.block;
            compress(&mut self.state, &block);
            self.filled = 0;
        }
        let whole = bytes.len() / 64 * 64;
        compress(&mut self.state, &bytes[..whole]);
        let tail = &bytes[whole..];
        self.block[..tail.len()].copy_from_slice(tail);
        self.filled = tail.len();
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn finalize(mut self) -> [u8; 32] {
        let bits = self.total.wrapping_mul(8);
        let mut pad = [0u8; 72];
        pad[0] = 0x80;
        // 0x80, zeros up to 56 mod 64, then the length in bits.
        let zeros = (119 - self.filled) % 64;
        pad[1 + zeros..9 + zeros].copy_from_slice(&bits.to_be_bytes());
        let total = self.total;
        self.update(&pad[..9 + zeros]);
        debug_assert_eq!(self.filled, 0);
        self.total = total;
        let mut out = [0u8; 32];
        for (o, w) in out.chunks_exact_mut(4).zip(self.state) {
            o.copy_from_slice(&w.to_be_bytes());
        }
        out
    }
}

/// Runs the compression function over `blocks` (a multiple of 64 bytes).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    if blocks.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if shani::available() {
        // SAFETY: the CPU has the SHA, SSE2, SSSE3 and SSE4.1 extensions (just checked), which
        // is all `digest_blocks` is compiled to use; it reads `blocks` in whole 64-byte blocks.
        unsafe { shani::digest_blocks(state, blocks) };
        return;
    }
    portable(state, blocks);
}

/// `sha2`'s compression function (its own detection; the software rounds off x86), block by
/// block, borrowing each from `blocks` (no copy of the input).
fn portable(state: &mut [u32; 8], blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
    }
}

#[cfg(target_arch = "x86_64")]
mod shani {
    use std::arch::x86_64::*;

    /// The round constants (FIPS 180-4, 4.2.2), four per `rounds4`.
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];

    /// Whether the SHA-extension path can run: by the feature words glibc recorded at start
    /// where it keeps them (no `cpuid`), else by the standard library's detection.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(super) fn available() -> bool {
        // `compress` asks on every call: answer once.
        static AVAILABLE: vm::hit::Lazy<bool> = vm::hit::Lazy::new();
        *AVAILABLE.get_or_init(detect)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn detect() -> bool {
        // glibc's leaf 7 EBX bit 29 (SHA), leaf 1 EDX bit 26 (SSE2), ECX bits 9 (SSSE3) and
        // 19 (SSE4.1), as `<bits/platform/x86.h>` numbers them.
        let active = crate::isa::glibc_cpu_active;
        if let (Some(sha), Some(sse2), Some(ssse3), Some(sse41)) = (
            active(1, 1, 29),
            active(0, 3, 26),
            active(0, 2, 9),
            active(0, 2, 19),
        ) {
            return sha && sse2 && ssse3 && sse41;
        }
        std::is_x86_feature_detected!("sha")
            && std::is_x86_feature_detected!("sse2")
            && std::is_x86_feature_detected!("ssse3")
            && std::is_x86_feature_detected!("sse4.1")
    }

    /// The next four message words.
    #[inline(always)]
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    unsafe fn schedule(v0: __m128i, v1: __m128i, v2: __m128i, v3: __m128i) -> __m128i {
        // SAFETY: only called from `digest_blocks`, which runs with the extensions enabled.
        unsafe {
            let t1 = _mm_sha256msg1_epu32(v0, v1);
            let t2 = _mm_alignr_epi8(v3, v2, 4);
            let t3 = _mm_add_epi32(t1, t2);
            _mm_sha256msg2_epu32(t3, v3)
        }
    }

    /// Four rounds with message words `w` and constants `K[4i..4i + 4]`.
    #[inline(always)]
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    unsafe fn rounds4(abef: &mut __m128i, cdgh: &mut __m128i, w: __m128i, i: usize) {
        // SAFETY: only called from `digest_blocks`, which runs with the extensions enabled.
        unsafe {
            let k = &K[4 * i..4 * i + 4];
            let kv = _mm_set_epi32(k[3] as i32, k[2] as i32, k[1] as i32, k[0] as i32);
            let t1 = _mm_add_epi32(w, kv);
            *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, t1);
            let t2 = _mm_shuffle_epi32(t1, 0x0E);
            *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, t2);
        }
    }

    /// The compression function over whole 64-byte blocks.
    ///
    /// # Safety
    /// The CPU must have the SHA, SSE2, SSSE3 and SSE4.1 extensions.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(super) unsafe fn digest_blocks(state: &mut [u32; 8], blocks: &[u8]) {
        let mask = _mm_set_epi64x(
            0x0C0D_0E0F_0809_0A0Bu64 as i64,
            0x0405_0607_0001_0203u64 as i64,
        );
        let state_ptr = state.as_ptr().cast::<__m128i>();
        // SAFETY: `state` is 32 bytes, two unaligned 16-byte loads.
        let (dcba, efgh) = unsafe {
            (
                _mm_loadu_si128(state_ptr),
                _mm_loadu_si128(state_ptr.add(1)),
            )
        };
        let cdab = _mm_shuffle_epi32(dcba, 0xB1);
        let efgh = _mm_shuffle_epi32(efgh, 0x1B);
        let mut abef = _mm_alignr_epi8(cdab, efgh, 8);
        let mut cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
        for block in blocks.chunks_exact(64) {
            let (abef_save, cdgh_save) = (abef, cdgh);
            let p = block.as_ptr().cast::<__m128i>();
            // SAFETY: `block` is 64 bytes, four unaligned 16-byte loads; the round helpers need
            // only the extensions this function is compiled with.
            unsafe {
                let mut w = [
                    _mm_shuffle_epi8(_mm_loadu_si128(p), mask),
                    _mm_shuffle_epi8(_mm_loadu_si128(p.add(1)), mask),
                    _mm_shuffle_epi8(_mm_loadu_si128(p.add(2)), mask),
                    _mm_shuffle_epi8(_mm_loadu_si128(p.add(3)), mask),
                ];
                for (i, &wi) in w.iter().enumerate() {
                    rounds4(&mut abef, &mut cdgh, wi, i);
                }
                for i in 4..16 {
                    let next = schedule(w[i % 4], w[(i + 1) % 4], w[(i + 2) % 4], w[(i + 3) % 4]);
                    w[i % 4] = next;
                    rounds4(&mut abef, &mut cdgh, next, i);
                }
            }
            abef = _mm_add_epi32(abef, abef_save);
            cdgh = _mm_add_epi32(cdgh, cdgh_save);
        }
        let feba = _mm_shuffle_epi32(abef, 0x1B);
        let dchg = _mm_shuffle_epi32(cdgh, 0xB1);
        let dcba = _mm_blend_epi16(feba, dchg, 0xF0);
        let hgef = _mm_alignr_epi8(dchg, feba, 8);
        let state_ptr = state.as_mut_ptr().cast::<__m128i>();
        // SAFETY: `state` is 32 bytes, two unaligned 16-byte stores.
        unsafe {
            _mm_storeu_si128(state_ptr, dcba);
            _mm_storeu_si128(state_ptr.add(1), hgef);
        }
    }
}

/// `bytes` in lowercase hexadecimal, two digits per byte (how digests are written).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = vm::hit::vec_with_capacity(2 * bytes.len());
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)]);
        s.push(DIGITS[usize::from(b & 15)]);
    }
    // SAFETY: every byte is an ASCII digit.
    unsafe { String::from_utf8_unchecked(s) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    fn data(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u32).wrapping_mul(2654435761).to_le_bytes()[2])
            .collect()
    }

    /// Every length around the block and padding boundaries, whole and split in two updates,
    /// agrees with `sha2`; so does the portable path alone.
    #[test]
    fn agrees_with_sha2() {
        let all = data(1000);
        for n in (0..200).chain([511, 512, 513, 1000]) {
            let want: [u8; 32] = sha2::Sha256::digest(&all[..n]).into();
            assert_eq!(Sha256::digest(&all[..n]), want, "{n} bytes");
            for cut in [0, 1, n / 3, n.saturating_sub(1)] {
                let cut = cut.min(n);
                let mut h = Sha256::new();
                h.update(&all[..cut]);
                h.update(&all[cut..n]);
                assert_eq!(h.finalize(), want, "{n} bytes cut at {cut}");
            }
        }
        let mut state = H0;
        portable(&mut state, &all[..640]);
        let mut fast = H0;
        compress(&mut fast, &all[..640]);
        assert_eq!(state, fast);
    }

    #[test]
    fn known_answers() {
        let hex = |d: [u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(Sha256::digest(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(Sha256::digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
