@I.ir_module
class ExpectedBroadcast3D:
    @R.function
    def main(
        data: R.Tensor((16, 32, 64), dtype="float32"),
        indices_1: R.Tensor((10,), dtype="int64"),
    ) -> R.Tuple(R.Tensor((16, 32, 64), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((16,), dtype="int64") = R.arange(
                R.prim_value(0), R.prim_value(16), R.prim_value(1), dtype="int64"
            )
            lv1: R.Tensor((16, 1), dtype="int64") = R.expand_dims(lv, axis=[1])
            lv2: R.Tensor((64,), dtype="int64") = R.arange(
                R.prim_value(0), R.prim_value(64), R.prim_value(1), dtype="int64"
            )
            lv3: R.Tensor((64, 1), dtype="int64") = R.expand_dims(lv2, axis=[1])
            lv4: R.Tensor((16, 10, 64), dtype="float32") = R.full(
                R.shape([16, 10, 64]), R.const(1.0, "float32"), dtype="float32"
            )
            lv5: R.Tensor((16, 32, 64), dtype="float32") = R.index_put(
                data, (lv1, indices_1, lv3), lv4, accumulate=False
            )
            gv: R.Tuple(R.Tensor((16, 32, 64), dtype="float32")) = (lv5,)
            R.output(gv)
        return gv
