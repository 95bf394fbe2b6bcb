# A fresh `ordo cases` folder of the FP32 FMA chain at the defaults of one level, its coverage printed:
# cmake -DORDO=... -DOUT=DIR -DLEVEL=N -P write_cases.cmake
foreach(var ORDO OUT LEVEL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "write_cases.cmake: -D${var}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${ORDO}" cases --contract fwd.f32.fma-chain/1 --level ${LEVEL} --out "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ordo cases exited ${rc}")
endif()
