//! `relax.run.non_max_suppression` and `relax.run.all_class_non_max_suppression`: the
//! non-maximum suppressions that `R.vision.non_max_suppression` and
//! `R.vision.all_class_non_max_suppression` are legalized to, with the semantics of TVM's
//! `topi.vision.non_max_suppression` (`_classic_nms_ir`, hard and soft) and
//! `topi.vision.all_class_non_max_suppression` (`_nms_loop`, `_collect_selected_indices_ir`,
//! `_collect_selected_indices_and_scores_ir`). The all-class result in ONNX format has as many
//! rows as boxes were selected, which only the run knows (TVM trims its kernel's output with a
//! `dynamic_strided_slice` of the count), so it is allocated here.
//!
//! Where TVM's kernel reads outside a buffer, this gives an error: a `valid_count` above the
//! number of anchors (TVM sorts and copies rows past the data) or negative (TVM's argsort
//! then reads no row; it is no count). Scores are ordered as TVM's stable argsort orders them
//! (descending, ties by position), with a NaN score after every number (TVM's comparison is no
//! order with NaNs, so its result then depends on the sort's internals).

use super::Args;
use crate::{DataType, Error, Result, Tensor, Value};

/// The float types the kernels compute in (TVM computes in the data's dtype).
trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + crate::tensor::Element
{
    fn of(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn exp(self) -> Self;
}

impl Real for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn exp(self) -> f32 {
        f32::exp(self)
    }
}

impl Real for f64 {
    fn of(v: f64) -> f64 {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
}

fn max<T: Real>(a: T, b: T) -> T {
    if a > b { a } else { b }
}
fn min<T: Real>(a: T, b: T) -> T {
    if a < b { a } else { b }
}

/// TVM's `calculate_overlap`: the intersection over union of two boxes given as two corners in
/// either order, 0 when the union is not positive.
fn iou<T: Real>(a: &[T], b: &[T]) -> T {
    let corners = |x: &[T]| {
        (
            min(x[0], x[2]),
            min(x[1], x[3]),
            max(x[0], x[2]),
            max(x[1], x[3]),
        )
    };
    let (al, at, ar, ab) = corners(a);
    let (bl, bt, br, bb) = corners(b);
    let zero = T::of(0.0);
    let w = max(zero, min(ar, br) - max(al, bl));
    let h = max(zero, min(ab, bb) - max(at, bt));
    let area = h * w;
    let u = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - area;
    if u <= zero { zero } else { area / u }
}

/// Positions `0..n` by descending `score`, ties by position, NaNs last.
fn order_descending<T: Real>(n: usize, score: impl Fn(usize) -> T) -> Vec<usize> {
    let key = |j: usize| {
        let v = score(j).to_f64();
        if v.is_nan() { f64::NEG_INFINITY } else { v }
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| {
        let (kx, ky) = (key(x), key(y));
        ky.total_cmp(&kx)
            .then_with(|| score(x).to_f64().is_nan().cmp(&score(y).to_f64().is_nan()))
    });
    order
}

fn read_i64s(a: &Args, t: &Tensor, param: &str) -> Result<Vec<i64>> {
    (0..t.numel())
        .map(|k| t.get_i64(k))
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| {
            Error::value_error(format!(
                "{}: {param} of dtype {} is not an integer tensor",
                a.name,
                t.dtype()
            ))
        })
}

fn float_arg(a: &Args, i: usize, param: &str) -> Result<f64> {
    match a.get(i) {
        Value::Float(v) => Ok(*v),
        _ => Ok(a.int(i, param)? as f64),
    }
}

/// One scalar from a 0-d or one-element tensor, or a prim value.
fn scalar(a: &Args, i: usize, param: &str) -> Result<f64> {
    match a.get(i) {
        Value::Tensor(t) => {
            if t.numel() != 1 {
                return Err(Error::value_error(format!(
                    "{}: {param} must hold one value, got a tensor of shape {:?}",
                    a.name,
                    t.shape()
                )));
            }
            t.get_f64(0).ok_or_else(|| {
                Error::value_error(format!(
                    "{}: {param} of dtype {} cannot be read",
                    a.name,
                    t.dtype()
                ))
            })
        }
        _ => float_arg(a, i, param),
    }
}

struct NmsParams {
    max_output_size: i64,
    iou_threshold: f64,
    force_suppress: bool,
    top_k: i64,
    coord_start: usize,
    score_index: usize,
    id_index: i64,
    return_indices: bool,
    invalid_to_bottom: bool,
    soft_nms_sigma: f64,
    score_threshold: f64,
}

/// `relax.run.non_max_suppression(data, valid_count, indices, max_output_size, iou_threshold,
/// force_suppress, top_k, coord_start, score_index, id_index, return_indices,
/// invalid_to_bottom, soft_nms_sigma, score_threshold)`: `R.vision.non_max_suppression`'s
/// results (see its inference) for a float32 or float64 `data`.
pub(super) fn non_max_suppression(args: &[Value]) -> Result<Value> {
    let a = Args::new("relax.run.non_max_suppression", args);
    a.expect_len(
        14,
        14,
        "(data: Tensor, valid_count: Tensor, indices: Tensor, max_output_size: int, iou_threshold: float, force_suppress: bool, top_k: int, coord_start: int, score_index: int, id_index: int, return_indices: bool, invalid_to_bottom: bool, soft_nms_sigma: float, score_threshold: float)",
    )?;
    let data = a.tensor(0, "data")?;
    let valid_count = a.tensor(1, "valid_count")?;
    let indices = a.tensor(2, "indices")?;
    let p = NmsParams {
        max_output_size: a.int(3, "max_output_size")?,
        iou_threshold: float_arg(&a, 4, "iou_threshold")?,
        force_suppress: a.int(5, "force_suppress")? != 0,
        top_k: a.int(6, "top_k")?,
        coord_start: a.usize(7, "coord_start")?,
        score_index: a.usize(8, "score_index")?,
        id_index: a.int(9, "id_index")?,
        return_indices: a.int(10, "return_indices")? != 0,
        invalid_to_bottom: a.int(11, "invalid_to_bottom")? != 0,
        soft_nms_sigma: float_arg(&a, 12, "soft_nms_sigma")?,
        score_threshold: float_arg(&a, 13, "score_threshold")?,
    };
    let [batch, anchors, length] = data.shape()[..] else {
        return Err(Error::value_error(format!(
            "{}: data must be 3-D, got shape {:?}",
            a.name,
            data.shape()
        )));
    };
    let (batch, anchors, length) = (batch as usize, anchors as usize, length as usize);
    if valid_count.shape() != [batch as i64] || indices.shape() != [batch as i64, anchors as i64] {
        return Err(Error::value_error(format!(
            "{}: valid_count must have shape [{batch}] and indices [{batch}, {anchors}], got {:?} and {:?}",
            a.name,
            valid_count.shape(),
            indices.shape()
        )));
    }
    if p.score_index >= length
        || p.coord_start
            .checked_add(3)
            .is_none_or(|last| last >= length)
        || p.id_index < -1
        || p.id_index >= length as i64
    {
        return Err(Error::value_error(format!(
            "{}: score_index {}, coord_start {} and id_index {} must lie in rows of {length} values",
            a.name, p.score_index, p.coord_start, p.id_index
        )));
    }
    let counts = read_i64s(&a, valid_count, "valid_count")?;
    let index_map = read_i64s(&a, indices, "indices")?;
    match data.dtype() {
        DataType::F32 => {
            nms_typed::<f32>(&a, data, &counts, &index_map, &p, [batch, anchors, length])
        }
        DataType::F64 => {
            nms_typed::<f64>(&a, data, &counts, &index_map, &p, [batch, anchors, length])
        }
        dt => Err(Error::value_error(format!(
            "{}: data of dtype {dt} is not supported (float32 or float64)",
            a.name
        ))),
    }
}

fn nms_typed<T: Real>(
    a: &Args,
    data: &Tensor,
    counts: &[i64],
    index_map: &[i64],
    p: &NmsParams,
    [batch, anchors, length]: [usize; 3],
) -> Result<Value> {
    let input: Vec<T> = data.to_vec::<T>().map_err(|e| e.context(a.name))?;
    let minus_one = T::of(-1.0);
    let mut out = vec![minus_one; input.len()];
    let mut box_indices = vec![-1i32; batch * anchors];
    let mut valid_box_count = vec![0i32; batch];
    let soft = p.soft_nms_sigma > 0.0;
    let thresh = T::of(if soft { p.score_threshold } else { 0.0 });
    let iou_threshold = T::of(p.iou_threshold);
    let (si, cs) = (p.score_index, p.coord_start);
    for i in 0..batch {
        let count = counts[i];
        if count < 0 || count as usize > anchors {
            return Err(Error::value_error(format!(
                "{}: valid_count[{i}] = {count} is outside [0, {anchors}]",
                a.name
            )));
        }
        let mut nkeep = count as usize;
        if p.top_k > 0 && (p.top_k as usize) < nkeep {
            nkeep = p.top_k as usize;
        }
        let src = &input[i * anchors * length..(i + 1) * anchors * length];
        let dst = &mut out[i * anchors * length..(i + 1) * anchors * length];
        let bix = &mut box_indices[i * anchors..(i + 1) * anchors];
        // TVM sorts the first `valid_count[i]` scores and copies the first `nkeep` of them.
        let order = order_descending(count as usize, |j| src[j * length + si]);
        for (j, &s) in order.iter().take(nkeep).enumerate() {
            dst[j * length..(j + 1) * length].copy_from_slice(&src[s * length..(s + 1) * length]);
            bix[j] = s as i32;
        }
        let row =
            |d: &[T], j: usize| -> Vec<T> { d[j * length + cs..j * length + cs + 4].to_vec() };
        let same_class = |d: &[T], j: usize, k: usize| {
            p.force_suppress
                || p.id_index < 0
                || d[j * length + p.id_index as usize] == d[k * length + p.id_index as usize]
        };
        let under_limit = |n: usize| p.max_output_size <= 0 || (n as i64) < p.max_output_size;
        let mut num_valid = 0usize;
        if soft {
            let scale = T::of(-0.5 / p.soft_nms_sigma);
            for _ in 0..nkeep {
                if !under_limit(num_valid) {
                    continue;
                }
                let mut best: Option<usize> = None;
                let mut best_score = thresh;
                for j in num_valid..nkeep {
                    if bix[j] >= 0 && dst[j * length + si] > best_score {
                        best = Some(j);
                        best_score = dst[j * length + si];
                    }
                }
                let Some(b) = best else { continue };
                if b != num_valid {
                    bix.swap(b, num_valid);
                    for k in 0..length {
                        dst.swap(num_valid * length + k, b * length + k);
                    }
                }
                let sel = row(dst, num_valid);
                for j in num_valid + 1..nkeep {
                    if bix[j] < 0
                        || dst[j * length + si] <= thresh
                        || !same_class(dst, num_valid, j)
                    {
                        continue;
                    }
                    let o = iou(&sel, &row(dst, j));
                    if o >= iou_threshold {
                        bix[j] = -1;
                    } else {
                        let s = dst[j * length + si] * (scale * o * o).exp();
                        dst[j * length + si] = s;
                        if s <= thresh {
                            bix[j] = -1;
                        }
                    }
                }
                num_valid += 1;
            }
            valid_box_count[i] = num_valid as i32;
            if p.return_indices {
                for b in bix.iter_mut().take(num_valid) {
                    *b = remap(index_map, i, anchors, *b);
                }
            }
            for j in num_valid..anchors {
                dst[j * length..(j + 1) * length].fill(minus_one);
                if p.return_indices {
                    bix[j] = -1;
                }
            }
        } else {
            for j in 0..nkeep {
                if dst[j * length + si] > thresh && under_limit(num_valid) {
                    num_valid += 1;
                    let sel = row(dst, j);
                    for k in j + 1..nkeep {
                        if dst[k * length + si] > thresh
                            && same_class(dst, j, k)
                            && iou(&sel, &row(dst, k)) >= iou_threshold
                        {
                            dst[k * length + si] = minus_one;
                            bix[k] = -1;
                        }
                    }
                } else {
                    dst[j * length..(j + 1) * length].fill(minus_one);
                    bix[j] = -1;
                }
            }
            if p.return_indices {
                let mut n = 0usize;
                for j in 0..anchors {
                    if bix[j] >= 0 {
                        bix[n] = remap(index_map, i, anchors, bix[j]);
                        n += 1;
                    }
                }
                bix[n..].fill(-1);
                valid_box_count[i] = n as i32;
            }
        }
    }
    let dshape = [batch as i64, anchors as i64, length as i64];
    let bshape = [batch as i64, anchors as i64];
    let tensor =
        |shape: &[i64], v: &[i32]| Tensor::from_slice(shape, v).map_err(|e| e.context(a.name));
    if p.return_indices {
        let idx = Value::Tensor(tensor(&bshape, &box_indices)?);
        let cnt = Value::Tensor(tensor(&[batch as i64, 1], &valid_box_count)?);
        let mut fields = vec![idx, cnt];
        if soft {
            let d = Tensor::from_slice(&dshape, &out).map_err(|e| e.context(a.name))?;
            fields.insert(0, Value::Tensor(d));
        }
        return Ok(Value::tuple(fields));
    }
    if p.invalid_to_bottom {
        // TVM's `_rearrange_out`: the rows whose score is not negative, in order, then -1 rows.
        let mut moved = vec![minus_one; out.len()];
        for i in 0..batch {
            let mut n = 0;
            for j in 0..anchors {
                let r = (i * anchors + j) * length;
                if out[r + si] >= T::of(0.0) {
                    let d = (i * anchors + n) * length;
                    moved[d..d + length].copy_from_slice(&out[r..r + length]);
                    n += 1;
                }
            }
        }
        out = moved;
    }
    Ok(Value::Tensor(
        Tensor::from_slice(&dshape, &out).map_err(|e| e.context(a.name))?,
    ))
}

/// `indices[i, slot]`: the anchor a kept box came from, in the caller's numbering (`slot` is
/// an anchor of the batch, set by the sort).
fn remap(index_map: &[i64], i: usize, anchors: usize, slot: i32) -> i32 {
    index_map[i * anchors + slot as usize] as i32
}

/// `relax.run.all_class_non_max_suppression(boxes, scores, max_output_boxes_per_class,
/// iou_threshold, score_threshold, output_format)`: for each batch and class, the boxes whose
/// score is above `score_threshold` by descending score, each kept unless a kept box of the
/// class overlaps it by at least `iou_threshold`, at most `max_output_boxes_per_class` of them
/// (as TVM's `_nms_loop`: no box at all when `iou_threshold` is not positive, and a box whose
/// score is not positive is never suppressed). `"onnx"`: `(selected (count, 3) int64 rows
/// (batch, class, box), (1,) int64 count)`; `"tensorflow"`: TVM's padded `(batch, classes *
/// boxes, 2)` indices, `(batch, classes * boxes)` float32 scores and `(batch,)` counts.
pub(super) fn all_class_non_max_suppression(args: &[Value]) -> Result<Value> {
    let a = Args::new("relax.run.all_class_non_max_suppression", args);
    a.expect_len(
        6,
        6,
        "(boxes: Tensor, scores: Tensor, max_output_boxes_per_class, iou_threshold, score_threshold, output_format: str)",
    )?;
    let boxes = a.tensor(0, "boxes")?;
    let scores = a.tensor(1, "scores")?;
    let max_out = scalar(&a, 2, "max_output_boxes_per_class")?;
    let iou_threshold = scalar(&a, 3, "iou_threshold")?;
    let score_threshold = scalar(&a, 4, "score_threshold")?;
    let format = a.str(5, "output_format")?;
    let (&[batch, num_boxes, four], &[sb, classes, sn]) = (boxes.shape(), scores.shape()) else {
        return Err(Error::value_error(format!(
            "{}: boxes and scores must be 3-D, got shapes {:?} and {:?}",
            a.name,
            boxes.shape(),
            scores.shape()
        )));
    };
    if four != 4 || sb != batch || sn != num_boxes {
        return Err(Error::value_error(format!(
            "{}: boxes must be (batch, boxes, 4) and scores (batch, classes, boxes), got {:?} and {:?}",
            a.name,
            boxes.shape(),
            scores.shape()
        )));
    }
    let (batch, classes, num_boxes) = (batch as usize, classes as usize, num_boxes as usize);
    let to_f32 = |t: &Tensor, param: &str| -> Result<Vec<f32>> {
        match t.dtype() {
            DataType::F32 => t.to_vec::<f32>().map_err(|e| e.context(a.name)),
            dt => Err(Error::value_error(format!(
                "{}: {param} of dtype {dt} is not supported (float32, as TVM's kernel)",
                a.name
            ))),
        }
    };
    let bx = to_f32(boxes, "boxes")?;
    let sc = to_f32(scores, "scores")?;
    // TVM's kernel compares in float32 and counts in int32.
    let limit = max_out.clamp(0.0, i32::MAX as f64) as usize;
    let (iou_t, score_t) = (iou_threshold as f32, score_threshold as f32);
    // Per (batch, class): the selected box indices and their scores, by descending score.
    let mut selected: Vec<Vec<(i64, f32)>> = Vec::with_capacity(batch * classes);
    for bc in 0..batch * classes {
        let b = bc / classes;
        let row = &sc[bc * num_boxes..(bc + 1) * num_boxes];
        let order = order_descending(num_boxes, |j| row[j]);
        let mut out_scores: Vec<f32> = order.iter().map(|&j| row[j]).collect();
        let valid = out_scores.iter().take_while(|&&s| s > score_t).count();
        let mut kept = Vec::new();
        if iou_t > 0.0 && valid > 0 {
            let corners =
                |j: usize| &bx[(b * num_boxes + order[j]) * 4..(b * num_boxes + order[j]) * 4 + 4];
            for j in 0..valid {
                if !(out_scores[j] > -1.0 && kept.len() < limit && out_scores[j] > score_t) {
                    continue;
                }
                kept.push((order[j] as i64, out_scores[j]));
                #[allow(clippy::needless_range_loop)] // `k` indexes the scores and the order
                for k in j + 1..valid {
                    if out_scores[k] > 0.0 && iou(corners(j), corners(k)) >= iou_t {
                        out_scores[k] = -1.0;
                    }
                }
            }
        }
        selected.push(kept);
    }
    let t = |shape: &[i64], v: &[i64]| Tensor::from_slice(shape, v).map_err(|e| e.context(a.name));
    match format {
        "onnx" => {
            let mut rows = Vec::new();
            for (bc, kept) in selected.iter().enumerate() {
                for &(j, _) in kept {
                    rows.extend([(bc / classes) as i64, (bc % classes) as i64, j]);
                }
            }
            let count = (rows.len() / 3) as i64;
            Ok(Value::tuple(vec![
                Value::Tensor(t(&[count, 3], &rows)?),
                Value::Tensor(t(&[1], &[count])?),
            ]))
        }
        "tensorflow" => {
            let per = classes * num_boxes;
            let mut idx = vec![0i64; batch * per * 2];
            let mut out_scores = vec![0f32; batch * per];
            let mut counts = vec![0i64; batch];
            for b in 0..batch {
                let mut n = 0;
                for c in 0..classes {
                    for &(j, s) in &selected[b * classes + c] {
                        idx[(b * per + n) * 2] = c as i64;
                        idx[(b * per + n) * 2 + 1] = j;
                        out_scores[b * per + n] = s;
                        n += 1;
                    }
                }
                counts[b] = n as i64;
            }
            let (b, per) = (batch as i64, per as i64);
            Ok(Value::tuple(vec![
                Value::Tensor(t(&[b, per, 2], &idx)?),
                Value::Tensor(
                    Tensor::from_slice(&[b, per], &out_scores).map_err(|e| e.context(a.name))?,
                ),
                Value::Tensor(t(&[b], &counts)?),
            ]))
        }
        other => Err(Error::value_error(format!(
            "{}: output_format must be \"onnx\" or \"tensorflow\", got \"{other}\"",
            a.name
        ))),
    }
}
