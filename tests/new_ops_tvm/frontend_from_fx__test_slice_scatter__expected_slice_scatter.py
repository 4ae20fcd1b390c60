@tvm.script.ir_module
class expected_slice_scatter:
    @R.function
    def main(
        a: R.Tensor((2, 5), dtype="float32"), b: R.Tensor((2, 3), dtype="float32")
    ) -> R.Tensor((2, 5), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 5), dtype="float32") = R.slice_scatter(
                a, b, R.prim_value(0), R.prim_value(3), R.prim_value(1), axis=1
            )
            gv: R.Tensor((2, 5), dtype="float32") = lv
            R.output(gv)
        return gv
