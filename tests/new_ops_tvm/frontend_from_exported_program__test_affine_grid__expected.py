@tvm.script.ir_module
class expected:
    @R.function
    def main(
        theta: R.Tensor((1, 2, 3), dtype="float32"),
    ) -> R.Tuple(R.Tensor((1, 16, 16, 2), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 2, 16, 16), dtype="float32") = R.image.affine_grid(
                theta, size=(16, 16)
            )
            lv1: R.Tensor((1, 16, 16, 2), dtype="float32") = R.permute_dims(
                lv, axes=[0, 2, 3, 1]
            )
            gv: R.Tuple(R.Tensor((1, 16, 16, 2), dtype="float32")) = (lv1,)
            R.output(gv)
        return gv
