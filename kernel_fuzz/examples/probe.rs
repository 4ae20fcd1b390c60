//! Scratch probe.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args[1] == "show" {
        let seed: u64 = args[2].parse().unwrap();
        let case = kernel_fuzz::generate(seed);
        println!(
            "{}\nshapes {:?}",
            tir::print_prim_func(&case.func),
            case.shapes
        );
        if args.len() > 3 {
            let inputs = kernel_fuzz::diff::input_data(&case);
            let (e, _) = kernel_fuzz::diff::run_interp(&case, &inputs);
            println!("interp: {e:?}");
            for (name, o) in kernel_fuzz::diff::CONFIGS {
                let r = kernel_fuzz::diff::run_jit(&case, o, &inputs).map(|r| r.0);
                println!("{name}: {r:?}");
            }
        }
        return;
    }
    let a: u64 = args[1].parse().unwrap();
    let b: u64 = args[2].parse().unwrap();
    let s = kernel_fuzz::run_seeds(a..b, |seed| eprintln!("seed {seed}"));
    for (seed, m) in &s.mismatches {
        println!(
            "seed {seed}: {}\n  {}",
            m.class,
            m.detail.replace('\n', "\n  ")
        );
    }
    println!("{s}");
}
