@I.ir_module
class ExpectedBatchedWithNone:
    @R.function
    def main(x: R.Tensor((2, 10), dtype="float32")) -> R.Tuple(
        R.Tensor((2, 11, 11), dtype="float32")
    ):
        with R.dataflow():
            lv: R.Tensor((2, 11, 11), dtype="float32") = R.full(
                R.shape([2, 11, 11]), R.const(0.0, "float32"), dtype="float32"
            )
            lv1: R.Tensor((10,), dtype="int64") = R.arange(
                R.prim_value(0), R.prim_value(10), R.prim_value(1), dtype="int64"
            )
            lv2: R.Tensor((10,), dtype="int64") = R.add(lv1, R.const(1, "int64"))
            lv3: R.Tensor((2,), dtype="int64") = R.arange(
                R.prim_value(0), R.prim_value(2), R.prim_value(1), dtype="int64"
            )
            lv4: R.Tensor((2, 1), dtype="int64") = R.reshape(lv3, R.shape([2, 1]))
            lv5: R.Tensor((2, 11, 11), dtype="float32") = R.index_put(
                lv, (lv4, lv1, lv2), x, accumulate=False
            )
            gv: R.Tuple(R.Tensor((2, 11, 11), dtype="float32")) = (lv5,)
            R.output(gv)
        return gv
