# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((2, 8, 3, 2), dtype="float32"), src: R.Tensor((2, 3, 3, 2), dtype="float32")) -> R.Tensor((2, 8, 3, 2), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 8, 3, 2), dtype="float32") = R.slice_scatter(data, src, 1, 7, 2, axis=1)
            R.output(gv)
        return gv
