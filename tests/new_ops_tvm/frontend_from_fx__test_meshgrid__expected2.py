@tvm.script.ir_module
class expected2:
    @R.function
    def main(
        inp_0: R.Tensor((3,), dtype="float32"), inp_1: R.Tensor((3,), dtype="float32")
    ) -> R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")):
        with R.dataflow():
            lv: R.Tuple(
                R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
            ) = R.meshgrid((inp_0, inp_1), indexing="xy")
            gv: R.Tuple(
                R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
            ) = lv
            R.output(gv)
        return gv
