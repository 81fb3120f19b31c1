project_id = "bold-leaf-00000002"
other_project_id = "misty-leaf-00000004"
