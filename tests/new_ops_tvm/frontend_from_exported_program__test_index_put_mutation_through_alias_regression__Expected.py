@I.ir_module
class Expected:
    @R.function
    def main(
        x: R.Tensor((5,), dtype="float32"),
        idx: R.Tensor((2,), dtype="int64"),
        values: R.Tensor((2,), dtype="float32"),
    ) -> R.Tuple(
        R.Tensor((5,), dtype="float32"),
        R.Tensor((5,), dtype="float32"),
    ):
        with R.dataflow():
            lv: R.Tensor((5,), dtype="float32") = R.index_put(
                x, (idx,), values, accumulate=False
            )
            # Mutation outputs introduced by functionalization are dropped;
            # only the user outputs (x, y) remain.
            gv: R.Tuple(
                R.Tensor((5,), dtype="float32"),
                R.Tensor((5,), dtype="float32"),
            ) = (
                lv,
                lv,
            )
            R.output(gv)
        return gv
