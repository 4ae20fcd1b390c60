# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32"), y: R.Tensor(dtype="float32", ndim=2)) -> R.Tuple(R.Tensor((2,), dtype="int64"), R.Tensor((2,), dtype="int64"), R.Tensor((2,), dtype="int64")):
        gv: R.Shape([n, 3]) = R.shape_of(x)
        a: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(gv)
        gv2: R.Shape(ndim=2) = R.shape_of(y)
        b: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(gv2)
        c: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(R.shape([n * 2, 7]))
        return (a, b, c)
