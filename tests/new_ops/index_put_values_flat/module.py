# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((3, 3), dtype="float32"), i0: R.Tensor((2, 1), dtype="int64"), i1: R.Tensor((3,), dtype="int64"), values: R.Tensor((6,), dtype="float32")) -> R.Tensor((3, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((3, 3), dtype="float32") = R.index_put(data, (i0, i1), values, accumulate=False)
            R.output(gv)
        return gv
