@I.ir_module
class Expected:
    @R.function
    def main(
        data: R.Tensor((64,), dtype="float32"),
        indices: R.Tensor((128,), dtype="int64"),
        values: R.Tensor((128,), dtype="float32"),
    ) -> R.Tensor((64,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((64,), dtype="float32") = R.index_put(
                data, R.tuple(indices), values, accumulate=False
            )
            gv: R.Tensor((64,), dtype="float32") = lv
            R.output(gv)
        return gv
