@I.ir_module
class Expected:
    @R.function
    def main(
        theta: R.Tensor((2, 3, 4), dtype="float32"),
        size: R.Tensor((5,), dtype="int64"),
    ) -> R.Tensor((2, 8, 16, 16, 3), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((2, 3, 8, 16, 16), dtype="float32") = R.image.affine_grid(
                theta, size=(8, 16, 16), align_corners=True
            )
            lv1: R.Tensor((2, 8, 16, 16, 3), dtype="float32") = R.permute_dims(
                lv, axes=[0, 2, 3, 4, 1]
            )
            gv: R.Tensor((2, 8, 16, 16, 3), dtype="float32") = lv1
            R.output(gv)
        return gv
