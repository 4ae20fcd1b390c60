@tvm.script.ir_module
class expected1:
    @R.function
    def main(
        a: R.Tensor((8, 8, 10, 10), dtype="float32"),
        b: R.Tensor((8, 3, 10, 10), dtype="float32"),
    ) -> R.Tuple(R.Tensor((8, 8, 10, 10), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((8, 8, 10, 10), dtype="float32") = R.slice_scatter(
                a, b, R.prim_value(1), R.prim_value(7), R.prim_value(2), axis=1
            )
            gv: R.Tuple(R.Tensor((8, 8, 10, 10), dtype="float32")) = (lv,)
            R.output(gv)
        return gv
