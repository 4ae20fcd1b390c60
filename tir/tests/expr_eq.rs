//! Deep equality of expressions (`PrimExpr: Eq + Hash`, TVM's `ExprDeepEqual`): by identity of
//! variables and buffers, never by name — the property the JIT's hoisting, accumulator
//! promotion and slab proofs rely on when they match expressions.

use std::collections::HashSet;

use relaxjit_tir as tir;
use tir::{BinaryOp, Buffer, DataType, ExprKind, PrimExpr, Var};

fn load(b: &Buffer, i: &Var) -> PrimExpr {
    PrimExpr::new(ExprKind::BufferLoad {
        buffer: b.clone(),
        indices: vec![PrimExpr::from(i)],
    })
}

#[test]
fn buffers_and_variables_that_share_a_name_are_different() {
    let n = vec![PrimExpr::i64(8)];
    let (a, b) = (
        Buffer::simple("rxplaceholder", DataType::FLOAT32, n.clone()),
        Buffer::simple("rxplaceholder", DataType::FLOAT32, n),
    );
    let i = Var::new("i", DataType::INT64);
    let i2 = Var::new("i", DataType::INT64);
    assert_eq!(load(&a, &i).to_string(), load(&b, &i).to_string());
    assert_ne!(load(&a, &i), load(&b, &i));
    assert_ne!(load(&a, &i), load(&a, &i2));
    assert_eq!(load(&a, &i), load(&a, &i));
    let set: HashSet<PrimExpr> = [load(&a, &i), load(&b, &i), load(&a, &i)].into();
    assert_eq!(set.len(), 2);
}

#[test]
fn structure_types_and_float_bits_matter() {
    let i = Var::new("i", DataType::INT64);
    let add = |x: PrimExpr, y: PrimExpr| PrimExpr::binary(BinaryOp::Add, x, y);
    assert_eq!(
        add(PrimExpr::from(&i), PrimExpr::i64(1)),
        add(PrimExpr::from(&i), PrimExpr::i64(1))
    );
    assert_ne!(
        add(PrimExpr::from(&i), PrimExpr::i64(1)),
        add(PrimExpr::i64(1), PrimExpr::from(&i))
    );
    assert_ne!(PrimExpr::i64(1), PrimExpr::i32(1));
    let f = |v: f64| {
        PrimExpr::new(ExprKind::FloatImm {
            dtype: DataType::FLOAT32,
            value: v,
        })
    };
    assert_ne!(f(0.0), f(-0.0));
    assert_eq!(f(f64::NAN), f(f64::NAN));
}
