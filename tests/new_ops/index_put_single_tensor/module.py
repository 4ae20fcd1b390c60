# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((6,), dtype="float32"), i0: R.Tensor((2,), dtype="int64"), values: R.Tensor((2,), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((6,), dtype="float32") = R.index_put(data, i0, values, accumulate=False)
            R.output(gv)
        return gv
