@I.ir_module
class expected2:
    @R.function
    def main(
        a: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((6, 16), dtype="float32")
    ) -> R.Tuple(R.Tensor((8, 16), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((8, 16), dtype="float32") = R.slice_scatter(
                a, b, R.prim_value(0), R.prim_value(6), R.prim_value(1), axis=0
            )
            gv: R.Tuple(R.Tensor((8, 16), dtype="float32")) = (lv,)
            R.output(gv)
        return gv
