//! Timing samples and their summary, shared by `cargo xtask bench`, the `relaxjit bench`
//! command (which mounts this file as its own module) and `bench/peers.py` (which follows the
//! same sampling rule): a sample is the mean time of a batch of calls, long enough that the
//! clock's resolution and one call's jitter do not matter; the summary is the median of the
//! samples and their interquartile range, which one slow sample (another process waking up)
//! does not move.

use std::time::{Duration, Instant};

/// The median, quartiles and extremes of a set of per-call times, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub min: f64,
    pub max: f64,
    pub samples: usize,
}

impl Summary {
    /// The summary of `samples` (seconds per call); `None` if there are none.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let mut s: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        if s.is_empty() {
            return None;
        }
        s.sort_by(f64::total_cmp);
        // Linear interpolation between the closest ranks.
        let quantile = |q: f64| {
            let pos = q * (s.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
        };
        Some(Summary {
            median: quantile(0.5),
            q1: quantile(0.25),
            q3: quantile(0.75),
            min: s[0],
            max: s[s.len() - 1],
            samples: s.len(),
        })
    }

    /// Half the interquartile range relative to the median (the `±` of `median ± spread`):
    /// the run's own measure of its noise.
    pub fn spread(&self) -> f64 {
        if self.median > 0.0 {
            (self.q3 - self.q1) / 2.0 / self.median
        } else {
            0.0
        }
    }
}

/// How long to sample one workload.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// The time all samples together should take, about.
    pub budget: Duration,
    /// The time one sample should take, about (a sample holds at least one call).
    pub sample: Duration,
    pub min_samples: usize,
    pub max_samples: usize,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            budget: Duration::from_secs(3),
            sample: Duration::from_millis(100),
            min_samples: 5,
            max_samples: 30,
        }
    }
}

/// What [`sample`] measured: the first call alone, then per-call times of the samples.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub first_call: Duration,
    /// Seconds per call, one per sample.
    pub samples: Vec<f64>,
    /// Calls per sample.
    pub calls_per_sample: usize,
}

/// Times `call` by `plan`: one first call, warm-up calls (at least three, or 50 ms), then
/// samples of `k` calls each, `k` chosen from the warm-up calls' mean so that a sample lasts
/// about `plan.sample`. Sampling stops once `plan.budget` has passed and `plan.min_samples`
/// are taken, so a machine that slows down midway does not stretch the run. `progress` is
/// told `(samples done, samples planned)` after each sample.
pub fn sample<E>(
    plan: &Plan,
    mut call: impl FnMut() -> Result<(), E>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Measurement, E> {
    let t = Instant::now();
    call()?;
    let first_call = t.elapsed();
    let (mut warm, mut warm_calls) = (Duration::ZERO, 0u32);
    while warm_calls < 3 || (warm < Duration::from_millis(50) && warm_calls < 1000) {
        let t = Instant::now();
        call()?;
        warm += t.elapsed();
        warm_calls += 1;
    }
    let per_call = (warm.as_secs_f64() / f64::from(warm_calls)).max(1e-9);
    let k = ((plan.sample.as_secs_f64() / per_call).ceil() as usize).max(1);
    let n = ((plan.budget.as_secs_f64() / (k as f64 * per_call)) as usize)
        .clamp(plan.min_samples, plan.max_samples.max(plan.min_samples));
    let mut samples = Vec::with_capacity(n);
    let began = Instant::now();
    for i in 0..n {
        if i >= plan.min_samples && began.elapsed() >= plan.budget {
            break;
        }
        let t = Instant::now();
        for _ in 0..k {
            call()?;
        }
        samples.push(t.elapsed().as_secs_f64() / k as f64);
        progress(i + 1, n);
    }
    Ok(Measurement {
        first_call,
        samples,
        calls_per_sample: k,
    })
}

/// A time in the unit that keeps it readable: `812 ns`, `45.3 µs`, `12.1 ms`, `1.52 s`.
pub fn format_seconds(s: f64) -> String {
    let (v, unit) = if s < 1e-6 {
        (s * 1e9, "ns")
    } else if s < 1e-3 {
        (s * 1e6, "µs")
    } else if s < 1.0 {
        (s * 1e3, "ms")
    } else {
        (s, "s")
    };
    if v < 10.0 {
        format!("{v:.2} {unit}")
    } else if v < 100.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_interpolate_between_ranks() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 2.0, 3.0, 4.0, 5.0)
        );
        assert_eq!(s.spread(), 1.0 / 3.0);
        let s = Summary::of(&[1.0, 2.0]).unwrap();
        assert_eq!((s.q1, s.median, s.q3), (1.25, 1.5, 1.75));
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[f64::NAN]), None);
    }

    #[test]
    fn sampling_counts_calls_and_stops_on_error() {
        let plan = Plan {
            budget: Duration::ZERO,
            sample: Duration::ZERO,
            min_samples: 4,
            max_samples: 4,
        };
        let mut calls = 0;
        let mut reported = Vec::new();
        let m = sample(
            &plan,
            || {
                calls += 1;
                Ok::<(), ()>(())
            },
            |done, of| reported.push((done, of)),
        )
        .unwrap();
        // One first call, three warm-up calls at least, then 4 samples of one call.
        assert_eq!(m.samples.len(), 4);
        assert_eq!(m.calls_per_sample, 1);
        assert!(calls >= 1 + 3 + 4);
        assert_eq!(reported, vec![(1, 4), (2, 4), (3, 4), (4, 4)]);
        let mut n = 0;
        let r = sample(
            &plan,
            || {
                n += 1;
                if n == 2 {
                    Err("second call failed")
                } else {
                    Ok(())
                }
            },
            |_, _| {},
        );
        assert_eq!(r.unwrap_err(), "second call failed");
    }

    #[test]
    fn times_read_in_their_unit() {
        assert_eq!(format_seconds(812e-9), "812 ns");
        assert_eq!(format_seconds(45.3e-6), "45.3 µs");
        assert_eq!(format_seconds(1.523), "1.52 s");
        assert_eq!(format_seconds(0.0121), "12.1 ms");
    }
}
