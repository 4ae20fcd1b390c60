//! The program generator: a seed becomes a random TIR [`PrimFunc`] and the shapes to call it
//! with ([`Case`]).
//!
//! Programs are loop nests (serial, parallel and vectorized loops; `int32` and `int64` loop
//! variables; `while` loops bounded by a local counter, as TVM's searches are) of stores into
//! several buffers of float and integer element types, with
//! constant and symbolic shapes. Index expressions use `+ - * // % min max`, truncating
//! division, casts between index widths, selects and loads of integer data (gathers).
//!
//! Most programs are valid and run: extents are small (a nest runs at most a few thousand
//! iterations) and most indices are wrapped into their dimension with `%`. About a quarter of the
//! programs may also hit the edges: constants such as 2^31 − 1 or 1073741825 whose products
//! wrap in `int32`, negative indices, divisors that are zero, and loops of up to 2^63 − 1
//! iterations. A huge loop is always one that fails at its first out-of-bounds iteration — its
//! body is a single unconditional access whose index moves by at least one element per
//! iteration — so that a correct kernel ends quickly with an error, and the reference
//! interpreter (with its step budget) agrees.

use std::collections::BTreeMap;

use tir::{
    AttrValue, BinaryOp, Buffer, BufferNode, CmpOp, DataType, ExprKind, For, ForKind, PrimExpr,
    PrimFunc, Stmt, StmtKind, Var,
};

use crate::inputs;
use crate::rng::Rng;

/// A generated program and the argument shapes to run it with.
#[derive(Clone, Debug)]
pub struct Case {
    /// The kernel. Every parameter is a buffer.
    pub func: PrimFunc,
    /// The shape of each argument, in parameter order.
    pub shapes: Vec<Vec<i64>>,
    /// The seed of the input data ([`crate::inputs::fill`]).
    pub input_seed: u64,
}

/// The element types of buffers, with their weights.
const ELEMENT_TYPES: [(DataType, u64); 7] = [
    (DataType::FLOAT32, 40),
    (DataType::FLOAT64, 10),
    (DataType::INT32, 15),
    (DataType::INT64, 12),
    (DataType::INT8, 5),
    (DataType::UINT8, 5),
    (DataType::FLOAT16, 4),
];

/// Integer constants that break index arithmetic: products that wrap in `int32`
/// (`i * 1073741825`), divisors and dividends at the type's limits.
const EDGE_INTS: [i64; 12] = [
    1073741825,
    268435456,
    i32::MAX as i64,
    i32::MIN as i64,
    1 << 31,
    1 << 32,
    (1 << 62) + 1,
    i64::MAX,
    i64::MIN,
    -1,
    0,
    65537,
];

/// Extents of loops that must stop at their first out-of-bounds iteration.
const HUGE_EXTENTS_I64: [i64; 6] = [
    i64::MAX,
    i64::MAX - 7,
    1 << 62,
    (1 << 62) + 3,
    (1 << 32) + 1,
    1 << 31,
];

/// The most iterations a nest of ordinary loops runs.
const MAX_ITERATIONS: i64 = 4096;

struct BufInfo {
    buffer: Buffer,
    /// The runtime extent of each dimension.
    dims: Vec<i64>,
}

struct Gen {
    rng: Rng,
    /// Whether this program may use the edge constructs.
    edge: bool,
    bufs: Vec<BufInfo>,
    /// Symbolic shape variables and their runtime values.
    syms: Vec<(Var, i64)>,
    /// Loop variables in scope, innermost last.
    loops: Vec<Var>,
    /// How many loop variables have been created (for unique names).
    loop_count: usize,
    /// Iterations of the enclosing loops.
    iterations: i64,
    /// How many `while` counters have been created (for unique names).
    while_count: usize,
    /// Decides where `while` loops go: a stream of its own, so that a program without one is
    /// the program its seed gave before `while` loops were generated (seeds named in tests and
    /// reports keep their programs).
    whiles: Rng,
}

/// The program of `seed`, with every construct.
pub fn generate(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let edge = rng.percent(25);
    let input_seed = rng.next_u64();
    let mut g = Gen {
        rng,
        edge,
        bufs: Vec::new(),
        syms: Vec::new(),
        loops: Vec::new(),
        loop_count: 0,
        iterations: 1,
        while_count: 0,
        whiles: Rng::new(seed ^ 0x5768_696c_6500_0000),
    };
    let nbufs = g.rng.range(2, 4) as usize;
    for k in 0..nbufs {
        g.add_buffer(k);
    }
    let nstmts = g.rng.range(1, 3);
    let body: Vec<Stmt> = (0..nstmts).map(|_| g.stmt(0)).collect();
    let mut attrs = BTreeMap::new();
    attrs.insert("tirx.noalias".to_string(), AttrValue::Bool(true));
    let params: Vec<Var> = g.bufs.iter().map(|b| b.buffer.data.clone()).collect();
    let func = PrimFunc {
        name: format!("fuzz_{seed}"),
        buffer_map: params
            .iter()
            .zip(&g.bufs)
            .map(|(p, b)| (p.clone(), b.buffer.clone()))
            .collect(),
        params,
        body: Stmt::seq(body),
        attrs,
        private: false,
        s_tir: false,
    };
    Case {
        func,
        shapes: g.bufs.iter().map(|b| b.dims.clone()).collect(),
        input_seed,
    }
}

/// `e` converted to `dt` (unchanged if it already has that type).
pub fn cast_to(dt: DataType, e: PrimExpr) -> PrimExpr {
    if e.dtype() == dt {
        e
    } else {
        PrimExpr::cast(dt, e)
    }
}

fn bin(op: BinaryOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
    PrimExpr::binary(op, a, b)
}

impl Gen {
    fn add_buffer(&mut self, k: usize) {
        let weights: Vec<u64> = ELEMENT_TYPES.iter().map(|(_, w)| *w).collect();
        let dtype = ELEMENT_TYPES[self.rng.weighted(&weights)].0;
        let rank = match self.rng.below(100) {
            0..=4 => 0,
            5..=69 => 1,
            _ => 2,
        };
        let index_dtype = if self.rng.percent(60) {
            DataType::INT64
        } else {
            DataType::INT32
        };
        let mut shape = Vec::new();
        let mut dims = Vec::new();
        for _ in 0..rank {
            let symbolic = self.rng.percent(30);
            let same_type: Vec<usize> = (0..self.syms.len())
                .filter(|i| self.syms[*i].0.dtype() == index_dtype)
                .collect();
            if symbolic && (!same_type.is_empty() && self.rng.percent(50) || self.syms.len() >= 2) {
                if let Some(i) = same_type.first().copied() {
                    let (v, value) = self.syms[i].clone();
                    shape.push(PrimExpr::from(v));
                    dims.push(value);
                    continue;
                }
            } else if symbolic {
                let value = if self.edge && self.rng.percent(10) {
                    0
                } else if self.rng.percent(5) {
                    self.rng.range(200, 300)
                } else {
                    self.rng.range(1, 12)
                };
                let v = Var::new(format!("n{}", self.syms.len()), index_dtype);
                self.syms.push((v.clone(), value));
                shape.push(PrimExpr::from(v));
                dims.push(value);
                continue;
            }
            let value = if self.edge && self.rng.percent(5) {
                0
            } else {
                self.rng.range(1, 10)
            };
            shape.push(PrimExpr::int(index_dtype, value));
            dims.push(value);
        }
        let name = ["A", "B", "C", "D", "E"][k];
        let mut buffer = BufferNode::clone(&Buffer::simple(name, dtype, shape));
        buffer.elem_offset = PrimExpr::int(index_dtype, 0);
        self.bufs.push(BufInfo {
            buffer: Buffer::new(buffer),
            dims,
        });
    }

    /// `e` converted to `dt`.
    fn convert(&mut self, dt: DataType, e: PrimExpr) -> PrimExpr {
        cast_to(dt, e)
    }

    fn index_dtype(&self, b: usize) -> DataType {
        self.bufs[b].buffer.elem_offset.dtype()
    }

    // ----- statements ------------------------------------------------------------------------

    fn stmt(&mut self, depth: usize) -> Stmt {
        if depth < 3 && (depth == 0 || self.rng.percent(50)) && self.iterations < MAX_ITERATIONS {
            self.for_loop(depth)
        } else if self.whiles.percent(6) {
            self.while_loop()
        } else if self.rng.percent(12) {
            let cond = self.condition(2);
            let then_case = self.store();
            let else_case = self.rng.percent(40).then(|| self.store());
            Stmt::new(StmtKind::IfThenElse {
                cond,
                then_case,
                else_case,
            })
        } else {
            self.store()
        }
    }

    /// `w[0] = 0; while w[0] < n (and a random condition): store; w[0] += 1` with `w` a local
    /// counter allocated around it and `n` in `0..=4`: at most four iterations, none when the
    /// condition fails at entry, and the condition may read what the body stores.
    fn while_loop(&mut self) -> Stmt {
        let i32 = DataType::INT32;
        let zero = PrimExpr::int(i32, 0);
        let counter = Buffer::new(BufferNode {
            scope: "local".into(),
            ..BufferNode::clone(&Buffer::simple(
                format!("w{}", self.while_count),
                i32,
                vec![PrimExpr::int(i32, 1)],
            ))
        });
        self.while_count += 1;
        let count = PrimExpr::load(counter.clone(), vec![zero.clone()]);
        let set = |value: PrimExpr| {
            Stmt::new(StmtKind::BufferStore {
                buffer: counter.clone(),
                value,
                indices: vec![zero.clone()],
            })
        };
        let n = self.rng.range(0, 5);
        let bounded = PrimExpr::cmp(CmpOp::Lt, count.clone(), PrimExpr::int(i32, n));
        let cond = if self.rng.percent(60) {
            PrimExpr::new(ExprKind::And(bounded, self.condition(1)))
        } else {
            bounded
        };
        let body = Stmt::seq(vec![
            self.store(),
            set(bin(BinaryOp::Add, count, PrimExpr::int(i32, 1))),
        ]);
        let run = Stmt::seq(vec![
            set(PrimExpr::int(i32, 0)),
            Stmt::new(StmtKind::While { cond, body }),
        ]);
        Stmt::new(StmtKind::Allocate {
            buffer_var: counter.data.clone(),
            dtype: i32,
            extents: counter.shape.clone(),
            scope: "local".into(),
            condition: PrimExpr::bool(true),
            body: Stmt::new(StmtKind::DeclBuffer {
                buffer: counter,
                body: run,
            }),
        })
    }

    fn new_loop_var(&mut self) -> Var {
        let dtype = if self.rng.percent(55) {
            DataType::INT64
        } else {
            DataType::INT32
        };
        self.loop_count += 1;
        Var::new(format!("i{}", self.loop_count - 1), dtype)
    }

    fn for_loop(&mut self, depth: usize) -> Stmt {
        let var = self.new_loop_var();
        let dt = var.dtype();
        if self.edge && self.rng.percent(25) && self.iterations <= 64 {
            let extent = if dt == DataType::INT64 {
                *self.rng.pick(&HUGE_EXTENTS_I64)
            } else {
                i64::from(i32::MAX) - self.rng.range(0, 2)
            };
            if let Some(body) = self.huge_body(&var) {
                // Parallel too: the parallel-for helper must stop handing out chunks after
                // the first error, or a huge loop runs for ever.
                let kind = if self.rng.percent(30) {
                    ForKind::Parallel
                } else {
                    ForKind::Serial
                };
                return for_stmt(
                    var,
                    PrimExpr::int(dt, 0),
                    PrimExpr::int(dt, extent),
                    kind,
                    body,
                );
            }
        }
        let room = (MAX_ITERATIONS / self.iterations.max(1)).max(1);
        let (extent, value) = self.extent(dt, room);
        let min = if self.rng.percent(85) {
            0
        } else {
            self.rng.range(-3, 3)
        };
        let saved = self.iterations;
        self.iterations = self.iterations.saturating_mul(value.max(1));
        self.loops.push(var.clone());
        let (body, kind) = if self.rng.percent(15) {
            match self.independent_store(&var) {
                Some(s) => {
                    let kind = if self.rng.percent(50) {
                        ForKind::Parallel
                    } else {
                        ForKind::Vectorized
                    };
                    (s, kind)
                }
                None => (self.store(), ForKind::Serial),
            }
        } else {
            let n = self.rng.range(1, 2);
            let body: Vec<Stmt> = (0..n).map(|_| self.stmt(depth + 1)).collect();
            (Stmt::seq(body), ForKind::Serial)
        };
        self.loops.pop();
        self.iterations = saved;
        for_stmt(var, PrimExpr::int(dt, min), extent, kind, body)
    }

    /// An ordinary loop extent of type `dt` and its runtime value (at most `room`).
    fn extent(&mut self, dt: DataType, room: i64) -> (PrimExpr, i64) {
        let usable: Vec<(Var, i64)> = self
            .syms
            .iter()
            .filter(|(_, v)| *v <= room)
            .cloned()
            .collect();
        if !usable.is_empty() && self.rng.percent(30) {
            let (v, value) = self.rng.pick(&usable).clone();
            return (cast_to(dt, PrimExpr::from(v)), value);
        }
        if self.iterations == 1 && room >= 3000 && self.rng.percent(4) {
            let value = self.rng.range(1000, 3000);
            return (PrimExpr::int(dt, value), value);
        }
        let value = match self.rng.below(100) {
            0..=4 => 0,
            5..=14 => 1,
            _ => self.rng.range(2, 9),
        }
        .min(room);
        (PrimExpr::int(dt, value), value)
    }

    /// The body of a huge loop over `var`: one access whose index moves by at least one
    /// element per iteration, so that it leaves its buffer within the buffer's size.
    fn huge_body(&mut self, var: &Var) -> Option<Stmt> {
        let ranked: Vec<usize> = (0..self.bufs.len())
            .filter(|b| !self.bufs[*b].dims.is_empty())
            .collect();
        if ranked.is_empty() {
            return None;
        }
        let b = *self.rng.pick(&ranked);
        let idt = self.index_dtype(b);
        let dt = var.dtype();
        let v = PrimExpr::from(var.clone());
        let moving = match self.rng.below(3) {
            0 => bin(BinaryOp::Add, v, PrimExpr::int(dt, self.rng.range(0, 3))),
            1 => bin(BinaryOp::Mul, v, PrimExpr::int(dt, self.rng.range(1, 3))),
            _ => bin(BinaryOp::Sub, PrimExpr::int(dt, self.rng.range(0, 3)), v),
        };
        let moving = cast_to(idt, moving);
        let rank = self.bufs[b].dims.len();
        let at = self.rng.below(rank as u64) as usize;
        // The other indices do not use `var`, so the flat offset moves with `moving`.
        let mut indices: Vec<PrimExpr> = (0..rank).map(|d| self.index(b, d)).collect();
        indices[at] = moving;
        self.loops.push(var.clone());
        let buffer = self.bufs[b].buffer.clone();
        let stmt = if self.rng.percent(60) {
            let value = self.value(buffer.dtype, 2);
            Stmt::new(StmtKind::BufferStore {
                buffer,
                value,
                indices,
            })
        } else {
            // The moving index on a load; the store goes anywhere.
            let target = self.rng.below(self.bufs.len() as u64) as usize;
            let tbuf = self.bufs[target].buffer.clone();
            let tindices = (0..tbuf.ndim()).map(|d| self.index(target, d)).collect();
            let value = self.convert(tbuf.dtype, PrimExpr::load(buffer, indices));
            Stmt::new(StmtKind::BufferStore {
                buffer: tbuf,
                value,
                indices: tindices,
            })
        };
        self.loops.pop();
        Some(stmt)
    }

    /// A store whose iterations of the loop over `var` are independent (for `T.parallel` and
    /// `T.vectorized`): the first index is `var` itself and the value reads other buffers only.
    fn independent_store(&mut self, var: &Var) -> Option<Stmt> {
        let ranked: Vec<usize> = (0..self.bufs.len())
            .filter(|b| !self.bufs[*b].dims.is_empty())
            .collect();
        if ranked.is_empty() || self.bufs.len() < 2 {
            return None;
        }
        let b = *self.rng.pick(&ranked);
        let idt = self.index_dtype(b);
        let buffer = self.bufs[b].buffer.clone();
        let mut indices: Vec<PrimExpr> = (0..buffer.ndim()).map(|d| self.index(b, d)).collect();
        indices[0] = cast_to(idt, PrimExpr::from(var.clone()));
        // Hide the stored buffer while generating the value.
        let hidden = self.bufs.remove(b);
        let value = self.value(buffer.dtype, 3);
        self.bufs.insert(b, hidden);
        Some(Stmt::new(StmtKind::BufferStore {
            buffer,
            value,
            indices,
        }))
    }

    fn store(&mut self) -> Stmt {
        let b = self.rng.below(self.bufs.len() as u64) as usize;
        let buffer = self.bufs[b].buffer.clone();
        let indices = (0..buffer.ndim()).map(|d| self.index(b, d)).collect();
        let value = self.value(buffer.dtype, 3);
        Stmt::new(StmtKind::BufferStore {
            buffer,
            value,
            indices,
        })
    }

    // ----- expressions -----------------------------------------------------------------------

    /// An index into dimension `d` of buffer `b`: usually wrapped into the dimension with `%`.
    fn index(&mut self, b: usize, d: usize) -> PrimExpr {
        let dt = self.index_dtype(b);
        let e = self.int_expr(dt, 2);
        let dim = self.bufs[b].buffer.shape[d].clone();
        let value = self.bufs[b].dims[d];
        let wrap = if self.edge { 60 } else { 97 };
        if self.rng.percent(wrap) && (value > 0 || self.rng.percent(30)) {
            bin(BinaryOp::FloorMod, e, cast_to(dt, dim))
        } else {
            e
        }
    }

    fn int_const(&mut self, dt: DataType) -> PrimExpr {
        let v = if self.edge && self.rng.percent(25) {
            *self.rng.pick(&EDGE_INTS)
        } else {
            self.rng.range(-3, 12)
        };
        PrimExpr::int(dt, inputs::int_bits(v, dt) as i64).wrapped()
    }

    /// A loaded element of an integer buffer (a gather index), if there is such a buffer.
    fn int_load(&mut self, depth: u32) -> Option<PrimExpr> {
        let ints: Vec<usize> = (0..self.bufs.len())
            .filter(|b| self.bufs[*b].buffer.dtype.is_int_or_uint())
            .collect();
        if ints.is_empty() || depth == 0 {
            return None;
        }
        let b = *self.rng.pick(&ints);
        let buffer = self.bufs[b].buffer.clone();
        let indices = (0..buffer.ndim()).map(|d| self.index(b, d)).collect();
        Some(PrimExpr::load(buffer, indices))
    }

    /// An integer expression of type `dt`.
    fn int_expr(&mut self, dt: DataType, depth: u32) -> PrimExpr {
        if depth == 0 || self.rng.percent(40) {
            let weights = [
                if self.loops.is_empty() { 0 } else { 55 },
                25,
                if self.syms.is_empty() { 0 } else { 8 },
                if depth > 0 { 8 } else { 0 },
            ];
            return match self.rng.weighted(&weights) {
                0 => {
                    let v = self.rng.pick(&self.loops).clone();
                    cast_to(dt, PrimExpr::from(v))
                }
                2 => {
                    let (v, _) = self.rng.pick(&self.syms).clone();
                    cast_to(dt, PrimExpr::from(v))
                }
                3 => match self.int_load(depth - 1) {
                    Some(e) => cast_to(dt, e),
                    None => self.int_const(dt),
                },
                _ => self.int_const(dt),
            };
        }
        let ops = [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::FloorDiv,
            BinaryOp::FloorMod,
            BinaryOp::Div,
            BinaryOp::Mod,
            BinaryOp::Min,
            BinaryOp::Max,
        ];
        match self.rng.below(12) {
            0 => {
                let other = if dt == DataType::INT64 {
                    DataType::INT32
                } else {
                    DataType::INT64
                };
                cast_to(dt, self.int_expr(other, depth - 1))
            }
            1 => {
                let cond = self.condition(depth - 1);
                let a = self.int_expr(dt, depth - 1);
                let b = self.int_expr(dt, depth - 1);
                PrimExpr::new(tir::ExprKind::Select {
                    cond,
                    true_value: a,
                    false_value: b,
                })
            }
            _ => {
                let op = *self.rng.pick(&ops);
                let a = self.int_expr(dt, depth - 1);
                let b = self.operand(op, dt, depth - 1);
                bin(op, a, b)
            }
        }
    }

    /// The right operand of `op`: for divisions, usually a nonzero constant.
    fn operand(&mut self, op: BinaryOp, dt: DataType, depth: u32) -> PrimExpr {
        let division = matches!(
            op,
            BinaryOp::FloorDiv | BinaryOp::FloorMod | BinaryOp::Div | BinaryOp::Mod
        );
        if division && !dt.is_float() && (!self.edge || self.rng.percent(70)) {
            let v = if self.edge && self.rng.percent(15) {
                *self.rng.pick(&[0, -1, i64::MIN, i64::from(i32::MIN)])
            } else if self.edge && self.rng.percent(20) {
                // Large divisors bring a wrapped product back near the buffer
                // (`i * 1073741825 // 268435456`).
                *self
                    .rng
                    .pick(&[268435456, 1073741824, 65536, i64::from(i32::MAX)])
            } else {
                self.rng.range(1, 8)
            };
            PrimExpr::int(dt, inputs::int_bits(v, dt) as i64).wrapped()
        } else if dt.is_float() {
            self.value(dt, depth)
        } else {
            self.int_expr(dt, depth)
        }
    }

    /// A `bool` condition comparing two integer or two float expressions.
    fn condition(&mut self, depth: u32) -> PrimExpr {
        let op = *self.rng.pick(&[
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ]);
        let (a, b) = if self.rng.percent(60) {
            let dt = *self.rng.pick(&[DataType::INT32, DataType::INT64]);
            (self.int_expr(dt, depth), self.int_expr(dt, depth))
        } else {
            let dt = *self.rng.pick(&[DataType::FLOAT32, DataType::FLOAT64]);
            (self.value(dt, depth), self.value(dt, depth))
        };
        PrimExpr::cmp(op, a, b)
    }

    fn float_const(&mut self, dt: DataType) -> PrimExpr {
        let v = if self.rng.percent(30) {
            *self.rng.pick(&inputs::SPECIAL_F64)
        } else {
            self.rng.range(-16, 16) as f64 / 4.0
        };
        PrimExpr::float(dt, round_float(v, dt))
    }

    /// A value of element type `dt` (float or integer).
    fn value(&mut self, dt: DataType, depth: u32) -> PrimExpr {
        if depth == 0 || self.rng.percent(35) {
            let weights = [50, 25, if self.loops.is_empty() { 0 } else { 15 }];
            return match self.rng.weighted(&weights) {
                0 => {
                    let b = self.rng.below(self.bufs.len() as u64) as usize;
                    let buffer = self.bufs[b].buffer.clone();
                    let indices = (0..buffer.ndim()).map(|d| self.index(b, d)).collect();
                    self.convert(dt, PrimExpr::load(buffer, indices))
                }
                2 => {
                    let v = self.rng.pick(&self.loops).clone();
                    cast_to(dt, PrimExpr::from(v))
                }
                _ if dt.is_float() => self.float_const(dt),
                _ => self.int_const(dt),
            };
        }
        if !dt.is_float() {
            return match self.rng.below(10) {
                0 => {
                    let from = *self.rng.pick(&[DataType::FLOAT32, DataType::FLOAT64]);
                    let v = self.value(from, depth - 1);
                    self.convert(dt, v)
                }
                1 => {
                    let from = *self
                        .rng
                        .pick(&[DataType::INT8, DataType::INT32, DataType::INT64]);
                    cast_to(dt, self.value(from, depth - 1))
                }
                _ => self.int_expr(dt, depth),
            };
        }
        match self.rng.below(12) {
            0 => {
                let ops = ["fabs", "floor", "ceil", "trunc", "round", "sqrt"];
                let op = *self.rng.pick(&ops);
                let a = self.value(dt, depth - 1);
                PrimExpr::call(dt, op, vec![a])
            }
            1 => {
                let cond = self.condition(depth - 1);
                let a = self.value(dt, depth - 1);
                let b = self.value(dt, depth - 1);
                PrimExpr::new(tir::ExprKind::Select {
                    cond,
                    true_value: a,
                    false_value: b,
                })
            }
            2 => {
                let from = *self
                    .rng
                    .pick(&[DataType::INT32, DataType::INT64, DataType::FLOAT64]);
                cast_to(dt, self.value(from, depth - 1))
            }
            _ => {
                let op = *self.rng.pick(&[
                    BinaryOp::Add,
                    BinaryOp::Sub,
                    BinaryOp::Mul,
                    BinaryOp::Div,
                    BinaryOp::Min,
                    BinaryOp::Max,
                ]);
                let a = self.value(dt, depth - 1);
                let b = self.value(dt, depth - 1);
                bin(op, a, b)
            }
        }
    }
}

fn for_stmt(var: Var, min: PrimExpr, extent: PrimExpr, kind: ForKind, body: Stmt) -> Stmt {
    Stmt::new(StmtKind::For(For {
        loop_var: var,
        min,
        extent,
        kind,
        thread_binding: None,
        annotations: BTreeMap::new(),
        body,
    }))
}

/// `v` rounded to the float type `dt`, as the f64 a `FloatImm` holds.
fn round_float(v: f64, dt: DataType) -> f64 {
    match dt.bits {
        64 => v,
        32 => f64::from(v as f32),
        _ => half::f16::from_f64(v).to_f64(),
    }
}

/// Integer constants stored with their value wrapped to their type, sign-extended.
trait Wrapped {
    fn wrapped(self) -> PrimExpr;
}

impl Wrapped for PrimExpr {
    fn wrapped(self) -> PrimExpr {
        match self.kind() {
            tir::ExprKind::IntImm { dtype, value } => {
                let bits = u32::from(dtype.bits);
                let v = if bits >= 64 || dtype.is_uint() {
                    *value
                } else {
                    (*value << (64 - bits)) >> (64 - bits)
                };
                PrimExpr::int(*dtype, v)
            }
            _ => self,
        }
    }
}
