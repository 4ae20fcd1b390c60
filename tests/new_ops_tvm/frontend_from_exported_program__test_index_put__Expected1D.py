@I.ir_module
class Expected1D:
    @R.function
    def main(
        data: R.Tensor((64,), dtype="float32"),
        indices_0: R.Tensor((128,), dtype="int64"),
        values: R.Tensor((128,), dtype="float32"),
    ) -> R.Tuple(R.Tensor((64,), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((64,), dtype="float32") = R.index_put(
                data, (indices_0,), values, accumulate=False
            )
            gv: R.Tuple(R.Tensor((64,), dtype="float32")) = (lv,)
            R.output(gv)
        return gv
