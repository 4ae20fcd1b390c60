# from typing import TypeVar
# from tvm.script import relax as R

n = TypeVar("n")
@R.function
def main(x: R.Tensor((n, 4), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
    with R.dataflow():
        a: R.Tensor((n, 4), dtype="float32") = R.add(x, y)
        b: R.Tensor((n, 4), dtype="float32") = R.nn.relu(a)
        R.output(b)
    return b
