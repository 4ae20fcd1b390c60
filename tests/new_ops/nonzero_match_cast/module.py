# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="int64")) -> R.Tensor(dtype="int64", ndim=1):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((1, n), dtype="int64") = R.match_cast(R.nonzero(x), R.Tensor((1, n), dtype="int64"))
            lv1: R.Tensor((n,), dtype="int64") = R.reshape(lv, R.shape([n]))
            lv2: R.Tensor((n,), dtype="int64") = R.take(x, lv1, axis=0, mode="fast")
            gv: R.Tensor((n,), dtype="int64") = R.add(lv2, lv2)
            R.output(gv)
        return gv
