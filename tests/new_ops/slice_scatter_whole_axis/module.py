# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((3, 4), dtype="float32"), src: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((3, 4), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((3, 4), dtype="float32") = R.slice_scatter(data, src, 0, 4, 1, axis=1)
            R.output(gv)
        return gv
