# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), dtype="float32"), b: R.Tensor((3,), dtype="float32"), c: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32")):
        with R.dataflow():
            gv: R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32")) = R.meshgrid((a, b, c), indexing="ij")
            R.output(gv)
        return gv
