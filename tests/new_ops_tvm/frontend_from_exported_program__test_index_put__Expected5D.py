@I.ir_module
class Expected5D:
    @R.function
    def main(
        data: R.Tensor((4, 8, 16, 32, 64), dtype="float32"),
        indices_0: R.Tensor((128,), dtype="int64"),
        indices_1: R.Tensor((128,), dtype="int64"),
        indices_2: R.Tensor((128,), dtype="int64"),
        indices_3: R.Tensor((128,), dtype="int64"),
        indices_4: R.Tensor((128,), dtype="int64"),
        values: R.Tensor((128,), dtype="float32"),
    ) -> R.Tuple(R.Tensor((4, 8, 16, 32, 64), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((4, 8, 16, 32, 64), dtype="float32") = R.index_put(
                data,
                (indices_0, indices_1, indices_2, indices_3, indices_4),
                values,
                accumulate=False,
            )
            gv: R.Tuple(R.Tensor((4, 8, 16, 32, 64), dtype="float32")) = (lv,)
            R.output(gv)
        return gv
