//! Host ISA construction and the host-feature summary that codegen uses to choose lowerings.
//!
//! Cranelift lowers `fma`, `floor`/`ceil`/`trunc`/`nearest` to native instructions only when
//! the ISA was built with the host's flags (`has_avx`+`has_fma`, `has_sse41`); without them it
//! emits libcalls. [`host_isa`] therefore always infers the host flags, and [`HostFeatures`]
//! tells the emitters in [`crate::math`] which branch-free fallback they must use instead of a
//! libcall.
//!
//! [`host_cpu_fingerprint`] reads the CPU's feature words from what glibc recorded at process
//! start, so that the artifact cache can key an entry by the host without executing `cpuid`
//! (each one traps to the hypervisor on a virtual machine) and without Cranelift's flag
//! inference.

use cranelift_codegen::isa::{OwnedTargetIsa, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};

use crate::error::{Error, Result};

/// Which optional instructions the target ISA lowers natively.
///
/// Derived from the ISA's own flags ([`HostFeatures::of_isa`]) so that an emitter never asks for
/// an instruction the ISA would turn into a libcall. Construct it by hand (e.g.
/// [`HostFeatures::BASELINE`]) to force the fallback lowerings, which is how the tests cover them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HostFeatures {
    /// `fma` lowers to one fused instruction (x64: `has_avx && has_fma`; always on aarch64).
    pub has_fma: bool,
    /// `floor`/`ceil`/`trunc`/`nearest` lower to one rounding instruction
    /// (x64: `has_sse41`; always on aarch64).
    pub has_sse41: bool,
    /// AVX2 is available. Cranelift's x64 backend only lowers 128-bit vectors, so this changes
    /// encodings, not vector width; it is informative for codegen heuristics.
    pub has_avx2: bool,
}

impl HostFeatures {
    /// Nothing optional: every lowering takes its portable fallback.
    pub const BASELINE: HostFeatures = HostFeatures {
        has_fma: false,
        has_sse41: false,
        has_avx2: false,
    };

    /// Reads the features off a built ISA.
    pub fn of_isa(isa: &dyn TargetIsa) -> HostFeatures {
        let flags = isa.isa_flags();
        let on = |name: &str| {
            flags
                .iter()
                .any(|f| f.name == name && f.as_bool() == Some(true))
        };
        match isa.name() {
            "x64" => HostFeatures {
                has_fma: on("has_avx") && on("has_fma"),
                has_sse41: on("has_sse41"),
                has_avx2: on("has_avx2"),
            },
            // AArch64 has fused multiply-add and all rounding modes in the base ISA; other
            // targets are treated conservatively.
            "aarch64" => HostFeatures {
                has_fma: true,
                has_sse41: true,
                has_avx2: false,
            },
            _ => HostFeatures::BASELINE,
        }
    }
}

/// Builds the ISA for the machine we run on, with every host feature cranelift-native detects,
/// `opt_level=speed`, and the IR verifier on only in debug builds.
///
/// `is_pic` is off: on x64 it would route even module-local function addresses through a GOT;
/// off, they are RIP-relative, which `crate::code` resolves inside the blob.
pub fn host_isa() -> Result<OwnedTargetIsa> {
    host_isa_with(HOST_SETTINGS)
}

/// The shared settings [`host_isa`] adds to [`base_settings`].
const HOST_SETTINGS: &[(&str, &str)] = &[("opt_level", "speed")];

/// The shared settings of every host ISA, before a caller's own.
fn base_settings() -> [(&'static str, &'static str); 3] {
    [
        (
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        ),
        ("is_pic", "false"),
        ("use_colocated_libcalls", "false"),
    ]
}

/// [`host_isa`] with other shared settings (`(name, value)`, applied last), for code that
/// wants another optimization trade-off on the same host flags and the same code model.
pub fn host_isa_with(settings_: &[(&str, &str)]) -> Result<OwnedTargetIsa> {
    let mut flags = settings::builder();
    for (name, value) in base_settings().iter().chain(settings_) {
        flags.set(name, value)?;
    }
    let isa_builder = cranelift_native::builder().map_err(|msg| Error::Unsupported(msg.into()))?;
    Ok(isa_builder.finish(settings::Flags::new(flags))?)
}

/// What [`host_isa`] compiles for, as text, cheaply: the architecture and OS, the shared
/// settings, and the SHA-256 of the CPU's feature words ([`host_cpu_fingerprint`]) — no
/// `cpuid` and no Cranelift call. Where glibc keeps no feature words, [`host_isa_flags_description`]. With
/// the Cranelift version (which the relaxjit build pins), either determines the ISA's every
/// flag, and so the code it emits.
// On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn host_isa_description() -> Result<String> {
    let Some(words) = host_cpu_fingerprint() else {
        return host_isa_flags_description();
    };
    // The words' SHA-256 rather than the words: the description is hashed into every key and
    // written into every entry header, and 64 digits stand for 288 bytes as well.
    let mut bytes = [0u8; 4 * 8 * GLIBC_LEAVES as usize];
    for (b, w) in bytes.chunks_exact_mut(4).zip(words) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    let mut s = shared_description();
    push_setting(
        &mut s,
        "cpu",
        &crate::sha256::hex(&crate::sha256::Sha256::digest(&bytes)),
    );
    Ok(s)
}

/// The architecture, the OS (which fix the calling convention) and the shared settings.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn shared_description() -> String {
    let mut s = String::with_capacity(1024);
    s.push_str(std::env::consts::ARCH);
    s.push('-');
    s.push_str(std::env::consts::OS);
    for (name, value) in base_settings().iter().chain(HOST_SETTINGS) {
        push_setting(&mut s, name, value);
    }
    s
}

/// Appends ` name=value` to a description.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn push_setting(s: &mut String, name: &str, value: &str) {
    s.push(' ');
    s.push_str(name);
    s.push('=');
    s.push_str(value);
}

/// What [`host_isa`] compiles for, as text, without building it: the architecture and OS
/// (which fix the calling convention), the shared settings, and the ISA flags that
/// cranelift-native infers for this host — the same calls that [`host_isa`] makes, recorded
/// instead of applied. Together with the Cranelift version (which the relaxjit build pins)
/// these determine the ISA's every flag, and so the code it emits. Building a Cranelift ISA
/// costs more than a cache hit should; this costs the CPU feature detection only.
pub fn host_isa_flags_description() -> Result<String> {
    /// Records the settings cranelift-native asks for.
    struct Recorder(Vec<(String, String)>);
    impl Configurable for Recorder {
        fn set(&mut self, name: &str, value: &str) -> settings::SetResult<()> {
            self.0.push((name.to_string(), value.to_string()));
            Ok(())
        }
        fn enable(&mut self, name: &str) -> settings::SetResult<()> {
            self.set(name, "true")
        }
    }
    let mut isa = Recorder(Vec::new());
    cranelift_native::infer_native_flags(&mut isa).map_err(|m| Error::Unsupported(m.into()))?;
    let mut s = shared_description();
    s.push_str(" isa:");
    for (name, value) in &isa.0 {
        push_setting(&mut s, name, value);
    }
    Ok(s)
}

/// The CPU's feature words as glibc recorded them when the process started (glibc ≥ 2.33 keeps
/// the `cpuid` leaves it read, and `__x86_get_cpuid_feature_leaf` hands them out): for each leaf
/// glibc keeps, the four registers `cpuid` returned and the four words of the features glibc
/// found usable (which accounts for what the OS enables in `XCR0`, as the standard library's
/// detection does), for the leaves in [`FINGERPRINT_LEAVES`]; the words of glibc's other leaves
/// stay zero (0x8000_0008 holds the core count, 0x14 and 0x19 depend on the hypervisor: keying
/// on them would only make equal hosts miss each other's entries). Leaf 1's EAX (the processor
/// signature) and EBX (which holds the initial APIC ID, and so differs from core to core) are
/// left out too. `None` where glibc does not keep them (another libc, another architecture, a
/// glibc older than 2.33).
///
/// Everything the standard library's `is_x86_feature_detected!` reads, and so every flag
/// cranelift-native infers, is a bit of these words (leaves 1, 7, 7.1, 0xD.1, 0x8000_0001 and
/// `XCR0` through the usable words; the tests check each flag against the standard library), so
/// two hosts with equal fingerprints get the same Cranelift ISA. Reading them is a few loads:
/// no `cpuid` executes.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn host_cpu_fingerprint() -> Option<[u32; 8 * GLIBC_LEAVES as usize]> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    {
        let mut words = [0u32; 8 * GLIBC_LEAVES as usize];
        for (i, w) in words.chunks_exact_mut(8).enumerate() {
            if !FINGERPRINT_LEAVES.contains(&(i as u32)) {
                continue;
            }
            let leaf = glibc::leaf(i as u32)?;
            w[..4].copy_from_slice(&leaf.cpuid_array);
            w[4..].copy_from_slice(&leaf.active_array);
        }
        // Leaf 1 (index 0): the signature and the APIC-ID word.
        words[0] = 0;
        words[1] = 0;
        Some(words)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

/// How many of glibc's `cpuid_index` leaves [`host_cpu_fingerprint`] reads: all that glibc
/// 2.36 keeps (1, 7, 0x8000_0001, 0xD.1, 0x8000_0007, 0x8000_0008, 7.1, 0x19, 0x14). A glibc
/// that keeps fewer returns zero words for the rest.
pub const GLIBC_LEAVES: u32 = 9;

/// The glibc leaves (`cpuid_index`) whose words [`host_cpu_fingerprint`] keys on: 1, 7,
/// 0x8000_0001, 0xD.1 and 7.1, the leaves the standard library's detection reads.
pub const FINGERPRINT_LEAVES: [u32; 5] = [0, 1, 2, 3, 6];

/// Whether glibc counts feature `bit` of register `reg` (0 EAX, 1 EBX, 2 ECX, 3 EDX) of its
/// leaf `index` (glibc's `cpuid_index`) as usable; `None` where glibc keeps no leaves (or is
/// older than 2.33).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn glibc_cpu_active(index: u32, reg: usize, bit: u32) -> Option<bool> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    {
        Some(glibc::leaf(index)?.active_array[reg & 3] >> (bit & 31) & 1 == 1)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
    {
        let _ = (index, reg, bit);
        None
    }
}

#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
mod glibc {
    /// glibc's `struct cpuid_feature` (`<bits/platform/x86.h>`).
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub(super) struct CpuidFeature {
        pub(super) cpuid_array: [u32; 4],
        pub(super) active_array: [u32; 4],
    }

    type FeatureLeaf = unsafe extern "C" fn(u32) -> *const CpuidFeature;

    /// glibc's `__x86_get_cpuid_feature_leaf` (glibc ≥ 2.33), or `None` on an older glibc.
    ///
    /// A weak reference, which the dynamic linker binds with the executable's other symbols
    /// when the process starts (null where no library defines it), so that relaxjit builds and
    /// runs on an older glibc too. Looking the function up at run time instead (`dlsym`) costs
    /// a symbol search through every loaded object, most of it page faults, several
    /// microseconds of every cache hit. Rust has no stable weak linkage, hence the assembly:
    /// the `.weak` directive and the one load through the GOT are in one block, so no strong
    /// reference to the symbol can exist in the object it lands in.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn feature_leaf() -> Option<FeatureLeaf> {
        let f: usize;
        // SAFETY: the block only loads the symbol's GOT slot, which the dynamic linker filled
        // in before `main` (the address, or 0 for an undefined weak symbol) and never writes
        // again; it touches no other memory, stack or flags.
        unsafe {
            std::arch::asm!(
                ".weak __x86_get_cpuid_feature_leaf",
                "mov {f}, qword ptr [rip + __x86_get_cpuid_feature_leaf@GOTPCREL]",
                f = out(reg) f,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        // SAFETY: a non-null `f` is the address of the symbol, which, where glibc defines it,
        // is the function `const struct cpuid_feature *__x86_get_cpuid_feature_leaf(unsigned
        // int)`.
        (f != 0).then(|| unsafe { std::mem::transmute::<usize, FeatureLeaf>(f) })
    }

    /// A copy of glibc's leaf `index`; `None` on a glibc without the function.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(super) fn leaf(index: u32) -> Option<CpuidFeature> {
        let f = feature_leaf()?;
        // SAFETY: the function takes any index and returns a pointer to a static, initialized
        // `struct cpuid_feature` (for an unknown index, a static all-zero one), which glibc
        // wrote before `main` and never writes again; we copy it out.
        Some(unsafe { *f(index) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every x86 flag of the host ISA (as cranelift-native infers it from the standard
    /// library's detection) is one bit of glibc's usable words, which [`host_cpu_fingerprint`]
    /// covers, and that bit agrees with the flag; likewise the SHA extension that
    /// `crate::sha256` asks glibc about.
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    #[test]
    fn the_cpu_fingerprint_covers_every_inferred_flag() {
        // (Cranelift flag, glibc index, register, bit), from `<bits/platform/x86.h>`.
        const TABLE: &[(&str, u32, usize, u32)] = &[
            ("has_sse3", 0, 2, 0),
            ("has_ssse3", 0, 2, 9),
            ("has_fma", 0, 2, 12),
            ("has_cmpxchg16b", 0, 2, 13),
            ("has_sse41", 0, 2, 19),
            ("has_sse42", 0, 2, 20),
            ("has_popcnt", 0, 2, 23),
            ("has_avx", 0, 2, 28),
            ("has_bmi1", 1, 1, 3),
            ("has_avx2", 1, 1, 5),
            ("has_bmi2", 1, 1, 8),
            ("has_avx512f", 1, 1, 16),
            ("has_avx512dq", 1, 1, 17),
            ("has_avx512vl", 1, 1, 31),
            ("has_avx512vbmi", 1, 2, 1),
            ("has_avx512vnni", 1, 2, 11),
            ("has_avx512bitalg", 1, 2, 12),
            ("has_lzcnt", 2, 2, 5),
            ("has_avx_vnni", 6, 0, 4),
        ];
        let words = host_cpu_fingerprint().unwrap();
        let isa = host_isa().unwrap();
        for f in isa.isa_flags() {
            let Some(on) = f.as_bool().filter(|_| f.name.starts_with("has_")) else {
                continue;
            };
            let &(_, index, reg, bit) = TABLE
                .iter()
                .find(|t| t.0 == f.name)
                .unwrap_or_else(|| panic!("cranelift flag {} has no row", f.name));
            assert_eq!(
                glibc_cpu_active(index, reg, bit),
                Some(on),
                "{}: glibc and cranelift-native disagree",
                f.name
            );
            assert_eq!(
                words[8 * index as usize + 4 + reg] >> bit & 1 == 1,
                on,
                "{} is not in the fingerprint",
                f.name
            );
        }
        assert_eq!(
            glibc_cpu_active(1, 1, 29),
            Some(std::is_x86_feature_detected!("sha")),
            "sha"
        );
    }

    /// The fingerprint is the same on every core (it leaves out the APIC ID) and from call to
    /// call: a key built from it must not change within a machine.
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    #[test]
    fn the_cpu_fingerprint_is_stable() {
        let a = host_cpu_fingerprint().unwrap();
        let b = std::thread::spawn(host_cpu_fingerprint)
            .join()
            .unwrap()
            .unwrap();
        assert_eq!(a, b);
        assert!(a.iter().any(|&w| w != 0), "glibc recorded no leaves");
    }

    /// The description must determine the ISA: every flag cranelift-native sets has that value
    /// in the built ISA, every host feature on in the ISA was set by it, and the shared
    /// settings are the ISA's.
    #[test]
    fn the_description_is_the_built_isa() {
        let isa = host_isa().unwrap();
        let description = host_isa_flags_description().unwrap();
        let (shared, recorded) = description.split_once(" isa:").unwrap();
        let recorded: Vec<(&str, &str)> = recorded
            .split_whitespace()
            .map(|kv| kv.split_once('=').unwrap())
            .collect();
        let isa_flags = isa.isa_flags();
        for (name, value) in &recorded {
            let flag = isa_flags.iter().find(|f| f.name == *name).unwrap();
            assert_eq!(flag.value_string(), *value, "{name}");
        }
        for f in &isa_flags {
            if f.name.starts_with("has_") && f.as_bool() == Some(true) {
                assert!(
                    recorded.contains(&(f.name, "true")),
                    "{} is on but not described",
                    f.name
                );
            }
        }
        let flags = isa.flags().iter().collect::<Vec<_>>();
        for kv in shared.split_whitespace().skip(1) {
            let (name, value) = kv.split_once('=').unwrap();
            let flag = flags.iter().find(|f| f.name == name).unwrap();
            assert_eq!(flag.value_string(), value, "{name}");
        }
        assert!(shared.starts_with(std::env::consts::ARCH));
    }
}
