@I.ir_module(s_tir=True)
class Expected:
    @R.function
    def _initialize_effect() -> R.Tuple(R.Any):
        with R.dataflow():
            _io: R.Any = R.null_value()
            lv: R.Tuple(R.Any) = (_io,)
            gv: R.Tuple(R.Any) = lv
            R.output(gv)
        return gv

    @R.function
    def foo(prob: R.Tensor((3, 5), dtype="float32"), uniform_sample: R.Tensor((6, 1), dtype="float32"), sample_indices: R.Tensor((6, 1), dtype="int64"), _io: R.Any) -> R.Tuple(R.Tensor((6, 1), dtype="int64"), R.Tuple(R.Any)):
        R.func_attr({"num_input": 4})
        with R.dataflow():
            multinomial_from_uniform: R.Tensor((6, 1), dtype="int64") = R.multinomial_from_uniform(prob, uniform_sample, sample_indices, dtype="int64")
            gv1: R.Tuple(R.Tensor((6, 1), dtype="int64"), R.Tuple(R.Any)) = multinomial_from_uniform, (_io,)
            R.output(gv1)
        return gv1
