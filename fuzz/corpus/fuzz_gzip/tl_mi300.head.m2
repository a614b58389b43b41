j{
"traceEvents": [
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MseLossBackward0", "pid": 542, "tid": 639,
    "ts": 3743411230047.485, "dur": 67.320,
    "args": {
      "External id": 1025,"Record function id": 0, "Sequence number": 1199, "Fwd thread id": 1, "Ev Idx": 0
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "MseLossBackward0", "pid": 542, "tid": 639,
    "ts": 3743411230052.985, "dur": 58.770,
    "args": {
      "External id": 1026,"Sequence number": 1199, "Fwd thread id": 1, "Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[]], "Input Dims": [[]], "Ev Idx": 1
    }
  },
{
    "ph": "f", "id": 1, "pid": 542, "tid": 639, "ts": 3743411230052.985,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mse_loss_backward", "pid": 542, "tid": 639,
    "ts": 3743411230067.425, "dur": 44.080,
    "args": {
      "External id": 1027,"Record function id": 0, "Concrete Inputs": ["", "", "", "1"], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar"], "Input Strides": [[], [1000, 1], [1000, 1], []], "Input Dims": [[], [10, 1000], [10, 1000], []], "Ev Idx": 2
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::zeros_like", "pid": 542, "tid": 639,
    "ts": 3743411230072.475, "dur": 29.670,
    "args": {
      "External id": 1028,"Record function id": 0, "Concrete Inputs": ["", "", "", "", "", "0"], "Input type": ["c10::BFloat16", "", "", "", "", "Scalar"], "Input Strides": [[1000, 1], [], [], [], [], []], "Input Dims": [[10, 1000], [], [], [], [], []], "Ev Idx": 3
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty_like", "pid": 542, "tid": 639,
    "ts": 3743411230073.915, "dur": 12.380,
    "args": {
      "External id": 1029,"Record function id": 0, "Concrete Inputs": ["", "15", "0", "", "", "0"], "Input type": ["c10::BFloat16", "Scalar", "Scalar", "", "", "Scalar"], "Input Strides": [[1000, 1], [], [], [], [], []], "Input Dims": [[10, 1000], [], [], [], [], []], "Ev Idx": 4
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 542, "tid": 639,
    "ts": 3743411230078.425, "dur": 6.170,
    "args": {
      "External id": 1030,"Record function id": 0, "Concrete Inputs": ["[10, 1000]", "15", "0", "", "", "0"], "Input type": ["ScalarList", "Scalar", "Scalar", "", "", "Scalar"], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 5
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::zero_", "pid": 542, "tid": 639,
    "ts": 3743411230087.815, "dur": 14.210,
    "args": {
      "External id": 1031,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1000, 1]], "Input Dims": [[10, 1000]], "Ev Idx": 6
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 542, "tid": 639,
    "ts": 3743411230089.745, "dur": 12.110,
    "args": {
      "External id": 1032,"Record function id": 0, "Concrete Inputs": ["", "0"], "Input type": ["c10::BFloat16", "Scalar"], "Input Strides": [[1000, 1], []], "Input Dims": [[10, 1000], []], "Ev Idx": 7
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mse_loss_backward", "pid": 542, "tid": 639,
    "ts": 3743411230103.475, "dur": 7.670,
    "args": {
      "External id": 1033,"Record function id": 0, "Concrete Inputs": ["", "", "", "1", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "c10::BFloat16"], "Input Strides": [[], [1000, 1], [1000, 1], [], [1000, 1]], "Input Dims": [[], [10, 1000], [10, 1000], [], [10, 1000]], "Ev Idx": 8
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 542, "tid": 639,
    "ts": 3743411230118.225, "dur": 106.769,
    "args": {
      "External id": 1034,"Record function id": 0, "Sequence number": 1198, "Fwd thread id": 1, "Ev Idx": 9
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "AddmmBackward0", "pid": 542, "tid": 639,
    "ts": 3743411230118.725, "dur": 80.209,
    "args": {
      "External id": 1035,"Sequence number": 1198, "Fwd thread id": 1, "Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1000, 1]], "Input Dims": [[10, 1000]], "Ev Idx": 10
    }
  },
{
    "ph": "f", "id": 2, "pid": 542, "tid": 639, "ts": 3743411230118.725,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 542, "tid": 639,
    "ts": 3743411230122.955, "dur": 7.200,
    "args": {
      "External id": 1036,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1, 512]], "Input Dims": [[512, 1000]], "Ev Idx": 11
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 542, "tid": 639,
    "ts": 3743411230125.545, "dur": 3.290,
    "args": {
      "External id": 1037,"Record function id": 0, "Concrete Inputs": ["", "0", "1"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[1, 512], [], []], "Input Dims": [[512, 1000], [], []], "Ev Idx": 12
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 542, "tid": 639,
    "ts": 3743411230127.985, "dur": 0.640,
    "args": {
      "External id": 1038,"Record function id": 0, "Concrete Inputs": ["", "[1000, 512]", "[512, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[1, 512], [], [], []], "Input Dims": [[512, 1000], [], [], []], "Ev Idx": 13
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 542, "tid": 639,
    "ts": 3743411230131.665, "dur": 42.109,
    "args": {
      "External id": 1039,"Record function id": 0, "Concrete Inputs": ["", ""], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Input Strides": [[1000, 1], [512, 1]], "Input Dims": [[10, 1000], [1000, 512]], "Ev Idx": 14
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 542, "tid": 639,
    "ts": 3743411230147.384, "dur": 2.710,
    "args": {
      "External id": 1040,"Record function id": 0, "Concrete Inputs": ["[79691776]", "0", "", "", "", ""], "Input type": ["ScalarList", "Scalar", "", "", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 15
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 542, "tid": 639,
    "ts": 3743411230174.924, "dur": 1.710,
    "args": {
      "External id": 1041,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1000, 1]], "Input Dims": [[10, 1000]], "Ev Idx": 16
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 542, "tid": 639,
    "ts": 3743411230175.284, "dur": 0.950,
    "args": {
      "External id": 1042,"Record function id": 0, "Concrete Inputs": ["", "0", "1"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[1000, 1], [], []], "Input Dims": [[10, 1000], [], []], "Ev Idx": 17
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 542, "tid": 639,
    "ts": 3743411230175.734, "dur": 0.420,
    "args": {
      "External id": 1043,"Record function id": 0, "Concrete Inputs": ["", "[1000, 10]", "[1, 1000]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[1000, 1], [], [], []], "Input Dims": [[10, 1000], [], [], []], "Ev Idx": 18
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 542, "tid": 639,
    "ts": 3743411230177.414, "dur": 19.470,
    "args": {
      "External id": 1044,"Record function id": 0, "Concrete Inputs": ["", ""], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Input Strides": [[1, 1000], [512, 1]], "Input Dims": [[1000, 10], [10, 512]], "Ev Idx": 19
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 542, "tid": 639,
    "ts": 3743411230184.764, "dur": 0.960,
    "args": {
      "External id": 1045,"Record function id": 0, "Concrete Inputs": ["[79691776]", "0", "", "", "", ""], "Input type": ["ScalarList", "Scalar", "", "", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 20
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 542, "tid": 639,
    "ts": 3743411230197.194, "dur": 1.320,
    "args": {
      "External id": 1046,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[512, 1]], "Input Dims": [[1000, 512]], "Ev Idx": 21
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 542, "tid": 639,
    "ts": 3743411230197.454, "dur": 0.540,
    "args": {
      "External id": 1047,"Record function id": 0, "Concrete Inputs": ["", "0", "1"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[512, 1], [], []], "Input Dims": [[1000, 512], [], []], "Ev Idx": 22
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 542, "tid": 639,
    "ts": 3743411230197.784, "dur": 0.150,
    "args": {
      "External id": 1048,"Record function id": 0, "Concrete Inputs": ["", "[512, 1000]", "[1, 512]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[512, 1], [], [], []], "Input Dims": [[1000, 512], [], [], []], "Ev Idx": 23
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 542, "tid": 639,
    "ts": 3743411230200.774, "dur": 11.160,
    "args": {
      "External id": 1049,"Record function id": 0, "Concrete Inputs": ["", "[0]", "True", ""], "Input type": ["c10::BFloat16", "ScalarList", "Scalar", ""], "Input Strides": [[1000, 1], [], [], []], "Input Dims": [[10, 1000], [], [], []], "Ev Idx": 24
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 542, "tid": 639,
    "ts": 3743411230213.434, "dur": 1.520,
    "args": {
      "External id": 1050,"Record function id": 0, "Concrete Inputs": ["", "[1000]"], "Input type": ["c10::BFloat16", "ScalarList"], "Input Strides": [[1000, 1], []], "Input Dims": [[1, 1000], []], "Ev Idx": 25
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "pid": 542, "tid": 639,
    "ts": 3743411230234.784, "dur": 25.230,
    "args": {
      "External id": 1051,"Record function id": 0, "Ev Idx": 26
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::autograd::AccumulateGrad", "pid": 542, "tid": 639,
    "ts": 3743411230235.734, "dur": 4.740,
    "args": {
      "External id": 1052,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1]], "Input Dims": [[1000]], "Ev Idx": 27
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::detach", "pid": 542, "tid": 639,
    "ts": 3743411230237.404, "dur": 2.920,
    "args": {
      "External id": 1053,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1]], "Input Dims": [[1000]], "Ev Idx": 28
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "detach", "pid": 542, "tid": 639,
    "ts": 3743411230238.784, "dur": 1.470,
    "args": {
      "External id": 1054,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1]], "Input Dims": [[1000]], "Ev Idx": 29
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::distributed::reducer::mul_out", "pid": 542, "tid": 639,
    "ts": 3743411230249.834, "dur": 9.060,
    "args": {
      "External id": 1055,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1]], "Input Dims": [[1000]], "Ev Idx": 30
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 542, "tid": 639,
    "ts": 3743411230251.074, "dur": 7.720,
    "args": {
      "External id": 1056,"Record function id": 0, "Concrete Inputs": ["", "", ""], "Input type": ["c10::BFloat16", "double", "c10::BFloat16"], "Input Strides": [[1], [], [1]], "Input Dims": [[1000], [], [1000]], "Ev Idx": 31
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: TBackward0", "pid": 542, "tid": 639,
    "ts": 3743411230262.144, "dur": 4.150,
    "args": {
      "External id": 1057,"Record function id": 0, "Sequence number": 1197, "Fwd thread id": 1, "Ev Idx": 32
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "TBackward0", "pid": 542, "tid": 639,
    "ts": 3743411230262.584, "dur": 1.920,
    "args": {
      "External id": 1058,"Sequence number": 1197, "Fwd thread id": 1, "Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1, 512]], "Input Dims": [[512, 1000]], "Ev Idx": 33
    }
  },
{
    "ph": "f", "id": 3, "pid": 542, "tid": 639, "ts": 3743411230262.584,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 542, "tid": 639,
    "ts": 3743411230263.004, "dur": 1.390,
    "args": {
      "External id": 1059,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[1, 512]], "Input Dims": [[512, 1000]], "Ev Idx": 34
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 542, "tid": 639,
    "ts": 3743411230263.364, "dur": 0.810,
    "args": {
      "External id": 1060,"Record function id": 0, "Concrete Inputs": ["", "0", "1"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[1, 512], [], []], "Input Dims": [[512, 1000], [], []], "Ev Idx": 35
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 542, "tid": 639,
    "ts": 3743411230263.834, "dur": 0.270,
    "args": {
      "External id": 1061,"Record function id": 0, "Concrete Inputs": ["", "[1000, 512]", "[512, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[1, 512], [], [], []], "Input Dims": [[512, 1000], [], [], []], "Ev Idx": 36
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "pid": 542, "tid": 639,
    "ts": 3743411230268.014, "dur": 7.850,
    "args": {
      "External id": 1062,"Record function id": 0, "Ev Idx": 37
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::autograd::AccumulateGrad", "pid": 542, "tid": 639,
    "ts": 3743411230268.634, "dur": 1.240,
    "args": {
      "External id": 1063,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[512, 1]], "Input Dims": [[1000, 512]], "Ev Idx": 38
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::detach", "pid": 542, "tid": 639,
    "ts": 3743411230269.154, "dur": 0.670,
    "args": {
      "External id": 1064,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[512, 1]], "Input Dims": [[1000, 512]], "Ev Idx": 39
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "detach", "pid": 542, "tid": 639,
    "ts": 3743411230269.384, "dur": 0.380,
    "args": {
      "External id": 1065,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[512, 1]], "Input Dims": [[1000, 512]], "Ev Idx": 40
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::distributed::reducer::mul_out", "pid": 542, "tid": 639,
    "ts": 3743411230270.914, "dur": 4.490,
    "args": {
      "External id": 1066,"Record function id": 0, "Concrete Inputs": [""], "Input type": ["c10::BFloat16"], "Input Strides": [[512, 1]], "Input Dims": [[1000, 512]], "Ev Idx": 41
    }
  }
],
"schemaVersion": 1,
"roctracer_version": 4.1,
"hip_runtime_version": 60443483,
"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]}], "nccl_version": "2.22.3"},
"record_shapes": 1,
"hip_driver_version": 60443483,
"with_stack": 1,
"trace_id": "E2DD41CB5FBC4E7C9464E0B56B6B3E2B",
"traceName": "./traces/rank0_iter16_18.json",
"displayTimeUnit": "ms",
"baseTimeNanoseconds": 1767189312000000000
}
