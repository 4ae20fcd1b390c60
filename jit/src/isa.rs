//! Host ISA construction and the host-feature summary that codegen uses to choose lowerings.
//!
//! Cranelift lowers `fma`, `floor`/`ceil`/`trunc`/`nearest` to native instructions only when
//! the ISA was built with the host's flags (`has_avx`+`has_fma`, `has_sse41`); without them it
//! emits libcalls. [`host_isa`] therefore always infers the host flags, and [`HostFeatures`]
//! tells the emitters in [`crate::math`] which branch-free fallback they must use instead of a
//! libcall.

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

/// What [`host_isa`] compiles for, as text, without building it: the architecture and OS
/// (which fix the calling convention), the shared settings, and the ISA flags that
/// cranelift-native infers for this host — the same calls that [`host_isa`] makes, recorded
/// instead of applied. Together with the Cranelift version (which the relaxjit build pins)
/// these determine the ISA's every flag, and so the code it emits. Building a Cranelift ISA
/// costs more than a cache hit should; this costs the CPU feature detection only.
pub fn host_isa_description() -> Result<String> {
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
    fn push(s: &mut String, name: &str, value: &str) {
        s.push(' ');
        s.push_str(name);
        s.push('=');
        s.push_str(value);
    }
    let mut s = String::with_capacity(512);
    s.push_str(std::env::consts::ARCH);
    s.push('-');
    s.push_str(std::env::consts::OS);
    for (name, value) in base_settings().iter().chain(HOST_SETTINGS) {
        push(&mut s, name, value);
    }
    s.push_str(" isa:");
    for (name, value) in &isa.0 {
        push(&mut s, name, value);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The description must determine the ISA: every flag cranelift-native sets has that value
    /// in the built ISA, every host feature on in the ISA was set by it, and the shared
    /// settings are the ISA's.
    #[test]
    fn the_description_is_the_built_isa() {
        let isa = host_isa().unwrap();
        let description = host_isa_description().unwrap();
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
