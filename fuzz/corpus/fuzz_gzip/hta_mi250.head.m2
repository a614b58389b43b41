z{
"traceEvents": [
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MseLossBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669604595.407, "dur": 340.024,
    "args": {
      "External id": 513,"Record function id": 35, "Sequence number": 7, "Fwd thread id": 1, "Ev Idx": 0
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "MseLossBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669604613.811, "dur": 311.681,
    "args": {
      "External id": 514,"Sequence number": 7, "Fwd thread id": 1, "Record function id": 36, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[]], "Input Dims": [[]], "Ev Idx": 1
    }
  },
{
    "ph": "f", "id": 1, "pid": 597913, "tid": 598009, "ts": 4203669604613.811,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mse_loss_backward", "pid": 597913, "tid": 598009,
    "ts": 4203669604640.993, "dur": 278.909,
    "args": {
      "External id": 515,"Record function id": 37, "Concrete Inputs": ["", "", "", "1"], "Input type": ["float", "float", "float", "Scalar"], "Input Strides": [[], [128, 1], [128, 1], []], "Input Dims": [[], [5, 128], [5, 128], []], "Ev Idx": 2
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::zeros_like", "pid": 597913, "tid": 598009,
    "ts": 4203669604654.799, "dur": 200.069,
    "args": {
      "External id": 516,"Record function id": 38, "Concrete Inputs": ["", "", "", "", "", "0"], "Input type": ["float", "", "", "", "", "Scalar"], "Input Strides": [[128, 1], [], [], [], [], []], "Input Dims": [[5, 128], [], [], [], [], []], "Ev Idx": 3
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty_like", "pid": 597913, "tid": 598009,
    "ts": 4203669604663.686, "dur": 95.471,
    "args": {
      "External id": 517,"Record function id": 39, "Concrete Inputs": ["", "6", "0", "", "", "0"], "Input type": ["float", "Scalar", "Scalar", "", "", "Scalar"], "Input Strides": [[128, 1], [], [], [], [], []], "Input Dims": [[5, 128], [], [], [], [], []], "Ev Idx": 4
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 597913, "tid": 598009,
    "ts": 4203669604679.856, "dur": 55.606,
    "args": {
      "External id": 518,"Record function id": 40, "Concrete Inputs": ["[5, 128]", "6", "0", "", "", "0"], "Input type": ["ScalarList", "Scalar", "Scalar", "", "", "Scalar"], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 5
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::zero_", "pid": 597913, "tid": 598009,
    "ts": 4203669604766.962, "dur": 61.696,
    "args": {
      "External id": 519,"Record function id": 41, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[128, 1]], "Input Dims": [[5, 128]], "Ev Idx": 6
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 597913, "tid": 598009,
    "ts": 4203669604773.364, "dur": 40.837,
    "args": {
      "External id": 520,"Record function id": 42, "Concrete Inputs": ["", "0"], "Input type": ["float", "Scalar"], "Input Strides": [[128, 1], []], "Input Dims": [[5, 128], []], "Ev Idx": 7
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mse_loss_backward", "pid": 597913, "tid": 598009,
    "ts": 4203669604868.053, "dur": 37.411,
    "args": {
      "External id": 521,"Record function id": 43, "Concrete Inputs": ["", "", "", "1", ""], "Input type": ["float", "float", "float", "Scalar", "float"], "Input Strides": [[], [128, 1], [128, 1], [], [128, 1]], "Input Dims": [[], [5, 128], [5, 128], [], [5, 128]], "Ev Idx": 8
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: ReluBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669604950.549, "dur": 71.175,
    "args": {
      "External id": 522,"Record function id": 44, "Sequence number": 6, "Fwd thread id": 1, "Ev Idx": 9
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "ReluBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669604956.270, "dur": 55.696,
    "args": {
      "External id": 523,"Sequence number": 6, "Fwd thread id": 1, "Record function id": 45, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[128, 1]], "Input Dims": [[5, 128]], "Ev Idx": 10
    }
  },
{
    "ph": "f", "id": 2, "pid": 597913, "tid": 598009, "ts": 4203669604956.270,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::threshold_backward", "pid": 597913, "tid": 598009,
    "ts": 4203669604968.333, "dur": 37.461,
    "args": {
      "External id": 524,"Record function id": 46, "Concrete Inputs": ["", "", "0"], "Input type": ["float", "float", "Scalar"], "Input Strides": [[128, 1], [128, 1], []], "Input Dims": [[5, 128], [5, 128], []], "Ev Idx": 11
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669605032.655, "dur": 292.003,
    "args": {
      "External id": 525,"Record function id": 47, "Sequence number": 5, "Fwd thread id": 1, "Ev Idx": 12
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "AddmmBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669605037.965, "dur": 215.699,
    "args": {
      "External id": 526,"Sequence number": 5, "Fwd thread id": 1, "Record function id": 48, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[128, 1]], "Input Dims": [[5, 128]], "Ev Idx": 13
    }
  },
{
    "ph": "f", "id": 3, "pid": 597913, "tid": 598009, "ts": 4203669605037.965,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 597913, "tid": 598009,
    "ts": 4203669605044.538, "dur": 79.250,
    "args": {
      "External id": 527,"Record function id": 49, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[128, 1]], "Input Dims": [[5, 128]], "Ev Idx": 14
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 597913, "tid": 598009,
    "ts": 4203669605051.591, "dur": 60.084,
    "args": {
      "External id": 528,"Record function id": 50, "Concrete Inputs": ["", "0", "1"], "Input type": ["float", "Scalar", "Scalar"], "Input Strides": [[128, 1], [], []], "Input Dims": [[5, 128], [], []], "Ev Idx": 15
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 597913, "tid": 598009,
    "ts": 4203669605065.497, "dur": 31.059,
    "args": {
      "External id": 529,"Record function id": 51, "Concrete Inputs": ["", "[128, 5]", "[1, 128]", ""], "Input type": ["float", "ScalarList", "ScalarList", ""], "Input Strides": [[128, 1], [], [], []], "Input Dims": [[5, 128], [], [], []], "Ev Idx": 16
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 597913, "tid": 598009,
    "ts": 4203669605130.120, "dur": 66.306,
    "args": {
      "External id": 530,"Record function id": 52, "Concrete Inputs": ["", ""], "Input type": ["float", "float"], "Input Strides": [[1, 128], [128, 1]], "Input Dims": [[128, 5], [5, 128]], "Ev Idx": 17
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 597913, "tid": 598009,
    "ts": 4203669605201.435, "dur": 48.001,
    "args": {
      "External id": 531,"Record function id": 53, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[128, 1]], "Input Dims": [[128, 128]], "Ev Idx": 18
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 597913, "tid": 598009,
    "ts": 4203669605205.993, "dur": 35.408,
    "args": {
      "External id": 532,"Record function id": 54, "Concrete Inputs": ["", "0", "1"], "Input type": ["float", "Scalar", "Scalar"], "Input Strides": [[128, 1], [], []], "Input Dims": [[128, 128], [], []], "Ev Idx": 19
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 597913, "tid": 598009,
    "ts": 4203669605213.939, "dur": 18.314,
    "args": {
      "External id": 533,"Record function id": 55, "Concrete Inputs": ["", "[128, 128]", "[1, 128]", ""], "Input type": ["float", "ScalarList", "ScalarList", ""], "Input Strides": [[128, 1], [], [], []], "Input Dims": [[128, 128], [], [], []], "Ev Idx": 20
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 597913, "tid": 598009,
    "ts": 4203669605261.418, "dur": 32.813,
    "args": {
      "External id": 534,"Record function id": 56, "Concrete Inputs": ["", "[0]", "True", ""], "Input type": ["float", "ScalarList", "Scalar", ""], "Input Strides": [[128, 1], [], [], []], "Input Dims": [[5, 128], [], [], []], "Ev Idx": 21
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 597913, "tid": 598009,
    "ts": 4203669605301.134, "dur": 12.123,
    "args": {
      "External id": 535,"Record function id": 57, "Concrete Inputs": ["", "[128]"], "Input type": ["float", "ScalarList"], "Input Strides": [[128, 1], []], "Input Dims": [[1, 128], []], "Ev Idx": 22
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "pid": 597913, "tid": 598009,
    "ts": 4203669605337.923, "dur": 6633.421,
    "args": {
      "External id": 536,"Record function id": 58, "Ev Idx": 23
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::autograd::AccumulateGrad", "pid": 597913, "tid": 598009,
    "ts": 4203669605342.522, "dur": 6622.971,
    "args": {
      "External id": 537,"Record function id": 59, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[1]], "Input Dims": [[128]], "Ev Idx": 24
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 597913, "tid": 598009,
    "ts": 4203669605365.756, "dur": 6590.830,
    "args": {
      "External id": 538,"Record function id": 60, "Concrete Inputs": ["", "", "1"], "Input type": ["float", "float", "Scalar"], "Input Strides": [[1], [1], []], "Input Dims": [[128], [128], []], "Ev Idx": 25
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: TBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669611983.727, "dur": 73.309,
    "args": {
      "External id": 539,"Record function id": 61, "Sequence number": 4, "Fwd thread id": 1, "Ev Idx": 26
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "TBackward0", "pid": 597913, "tid": 598009,
    "ts": 4203669611989.208, "dur": 62.007,
    "args": {
      "External id": 540,"Sequence number": 4, "Fwd thread id": 1, "Record function id": 62, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[1, 128]], "Input Dims": [[128, 128]], "Ev Idx": 27
    }
  },
{
    "ph": "f", "id": 4, "pid": 597913, "tid": 598009, "ts": 4203669611989.208,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 597913, "tid": 598009,
    "ts": 4203669611992.865, "dur": 55.294,
    "args": {
      "External id": 541,"Record function id": 63, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[1, 128]], "Input Dims": [[128, 128]], "Ev Idx": 28
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 597913, "tid": 598009,
    "ts": 4203669611998.155, "dur": 41.298,
    "args": {
      "External id": 542,"Record function id": 64, "Concrete Inputs": ["", "0", "1"], "Input type": ["float", "Scalar", "Scalar"], "Input Strides": [[1, 128], [], []], "Input Dims": [[128, 128], [], []], "Ev Idx": 29
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 597913, "tid": 598009,
    "ts": 4203669612007.412, "dur": 22.212,
    "args": {
      "External id": 543,"Record function id": 65, "Concrete Inputs": ["", "[128, 128]", "[128, 1]", ""], "Input type": ["float", "ScalarList", "ScalarList", ""], "Input Strides": [[1, 128], [], [], []], "Input Dims": [[128, 128], [], [], []], "Ev Idx": 30
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "pid": 597913, "tid": 598009,
    "ts": 4203669612065.632, "dur": 42.421,
    "args": {
      "External id": 544,"Record function id": 66, "Ev Idx": 31
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::autograd::AccumulateGrad", "pid": 597913, "tid": 598009,
    "ts": 4203669612069.750, "dur": 34.676,
    "args": {
      "External id": 545,"Record function id": 67, "Concrete Inputs": [""], "Input type": ["float"], "Input Strides": [[128, 1]], "Input Dims": [[128, 128]], "Ev Idx": 32
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 597913, "tid": 598009,
    "ts": 4203669612075.762, "dur": 22.773,
    "args": {
      "External id": 546,"Record function id": 68, "Concrete Inputs": ["", "", "1"], "Input type": ["float", "float", "Scalar"], "Input Strides": [[128, 1], [128, 1], []], "Input Dims": [[128, 128], [128, 128], []], "Ev Idx": 33
    }
  },
{
    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 597913, "tid": 597913,
    "ts": 4203669603187.439, "dur": 9288.291,
    "args": {
      "External id": 1,"Record function id": 1, "Ev Idx": 34
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::randn", "pid": 597913, "tid": 597913,
    "ts": 4203669603248.675, "dur": 111.431,
    "args": {
      "External id": 2,"Record function id": 2, "Concrete Inputs": ["[5, 128]", "", "", "", "False"], "Input type": ["ScalarList", "", "", "", "Scalar"], "Input Strides": [[], [], [], [], []], "Input Dims": [[], [], [], [], []], "Ev Idx": 35
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 597913, "tid": 597913,
    "ts": 4203669603259.796, "dur": 44.353,
    "args": {
      "External id": 3,"Record function id": 3, "Concrete Inputs": ["[5, 128]", "", "", "", "False", ""], "Input type": ["ScalarList", "", "", "", "Scalar", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 36
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::normal_", "pid": 597913, "tid": 597913,
    "ts": 4203669603323.666, "dur": 25.399,
    "args": {
      "External id": 4,"Record function id": 4, "Concrete Inputs": ["", "0.", "1.", ""], "Input type": ["float", "Scalar", "Scalar", ""], "Input Strides": [[128, 1], [], [], []], "Input Dims": [[5, 128], [], [], []], "Ev Idx": 37
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 597913, "tid": 597913,
    "ts": 4203669603376.096, "dur": 172.367,
    "args": {
      "External id": 5,"Sequence number": 4, "Fwd thread id": 0, "Record function id": 5, "Concrete Inputs": ["", "6", "0", "", "", "False", "False", ""], "Input type": ["float", "Scalar", "Scalar", "", "", "Scalar", "Scalar", ""], "Input Strides": [[128, 1], [], [], [], [], [], [], []], "Input Dims": [[5, 128], [], [], [], [], [], [], []], "Ev Idx": 38
    }
  }
],
"schemaVersion": 1,
"deviceProperties": [{"id": 0, "name": "AMD Radeon Graphics", "totalGlobalMem": 68702699520, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 104, "maxSharedMemoryPerMultiProcessor": 65536}, {"id": 1, "name": "AMD Radeon Graphics", "totalGlobalMem": 68702699520, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 104, "maxSharedMemoryPerMultiProcessor": 65536}, {"id": 2, "name": "AMD Radeon Graphics", "totalGlobalMem": 68702699520, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 104, "maxSharedMemoryPerMultiProcessor": 65536}, {"id": 3, "name": "AMD Radeon Graphics", "totalGlobalMem": 68702699520, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 104, "maxSharedMemoryPerMultiProcessor": 65536}],
"record_shapes": 1,
"traceName": "./logs/mi250_minitoy_train_ROCm6_2_kineto.json",
"displayTimeUnit": "ms",
"baseTimeNanoseconds": 1735632360000000000
}
