//! The README's example: compile a TVMScript module and call it, in one line.
use relaxjit::{Engine, Tensor};

pub fn main() -> relaxjit::Result<()> {
    let src = include_str!("mlp.py"); // relu(x @ w + b) with x: (n, 4), w: (4, 3), b: (3,)
    let x = Tensor::from_slice(&[2, 4], &[1.0f32, 2.0, 3.0, 4.0, -1.0, -2.0, -3.0, -4.0])?;
    let w = Tensor::from_slice(&[4, 3], &[0.25f32; 12])?;
    let b = Tensor::from_slice(&[3], &[0.5f32, -0.5, 0.0])?;
    let y = Engine::compile_and_run(src, "main", &[x.into(), w.into(), b.into()])?;
    let y: Vec<f32> = y.as_tensor()?.to_vec()?;
    assert_eq!(y, [3.0, 2.0, 2.5, 0.0, 0.0, 0.0]);
    Ok(())
}
